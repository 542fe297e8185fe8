import { describe, expect, it } from 'vitest';
import { beginSettlement, finishPurchase, getPurchase, insertPurchase, PURCHASE_TTL_MS, type PurchaseInput } from './purchases.ts';
import { openTestDatabase } from './testing.ts';

const NOW = new Date('2026-11-01T12:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);
const input: PurchaseInput = {
  service_id: 'index-demo-web-search',
  params: { query_id: 'x402-facilitators', max_results: 5 },
  resource_url: 'https://staging.test/api/demo/services/web-search?query_id=x402-facilitators&max_results=5',
  amount_atomic: '3000',
  pay_to: '0x00000000000000000000000000000000000Fee01',
  network: 'eip155:84532',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
};
const PAYER = '0x8bEca3b31a7EdD1E1d59af8995EA241C45dfd617';
const NONCE = `0x${'ab'.repeat(32)}`;

describe('data/purchases.ts', () => {
  it('records a purchase awaiting approval with an unguessable id that expires after 300 s', () => {
    const db = openTestDatabase();
    const purchase = insertPurchase(db, input, NOW);
    expect(purchase).toMatchObject({ ...input, status: 'awaiting_approval', reason: null, payer: null, transaction_hash: null, response: null });
    expect(purchase.id).toMatch(/^pur_[A-Za-z0-9_-]{22}$/);
    expect(insertPurchase(db, input, NOW).id).not.toBe(purchase.id);
    expect(purchase.expires_at).toBe(later(PURCHASE_TTL_MS).toISOString());
    expect(getPurchase(db, purchase.id, later(PURCHASE_TTL_MS - 1))?.status).toBe('awaiting_approval');
    expect(getPurchase(db, purchase.id, later(PURCHASE_TTL_MS))?.status).toBe('expired');
    expect(getPurchase(db, 'pur_unknown', NOW)).toBeNull();
  });

  it('lets one approval start settling, refuses a second, an expired purchase and a reused nonce', () => {
    const db = openTestDatabase();
    const first = insertPurchase(db, input, NOW);
    expect(beginSettlement(db, first.id, { payer: PAYER, nonce: NONCE }, NOW)).toMatchObject({ ok: true, purchase: { status: 'settling', payer: PAYER } });
    expect(beginSettlement(db, first.id, { payer: PAYER, nonce: `0x${'cd'.repeat(32)}` }, NOW)).toEqual({ ok: false, refusal: 'already_approved' });
    const second = insertPurchase(db, input, NOW);
    expect(beginSettlement(db, second.id, { payer: PAYER.toLowerCase(), nonce: NONCE.toUpperCase().replace('0X', '0x') }, NOW)).toEqual({ ok: false, refusal: 'nonce_used' });
    expect(beginSettlement(db, second.id, { payer: '0x0000000000000000000000000000000000000001', nonce: NONCE }, NOW).ok).toBe(true);
    const late = insertPurchase(db, input, NOW);
    expect(beginSettlement(db, late.id, { payer: PAYER, nonce: `0x${'ef'.repeat(32)}` }, later(PURCHASE_TTL_MS))).toEqual({ ok: false, refusal: 'expired' });
    expect(beginSettlement(db, 'pur_unknown', { payer: PAYER, nonce: NONCE }, NOW)).toEqual({ ok: false, refusal: 'not_found' });
  });

  it('finishes a settling purchase as completed with the answer, or failed with the reason, once', () => {
    const db = openTestDatabase();
    const paid = insertPurchase(db, input, NOW);
    expect(finishPurchase(db, paid.id, { status: 'failed', reason: 'x' }, NOW)).toBeNull();
    beginSettlement(db, paid.id, { payer: PAYER, nonce: NONCE }, NOW);
    const completed = finishPurchase(db, paid.id, { status: 'completed', transaction_hash: `0x${'12'.repeat(32)}`, response: { answer: 42 } }, later(1000));
    expect(completed).toMatchObject({ status: 'completed', reason: null, transaction_hash: `0x${'12'.repeat(32)}`, response: { answer: 42 }, updated_at: later(1000).toISOString() });
    expect(getPurchase(db, paid.id, later(PURCHASE_TTL_MS * 2))?.status).toBe('completed');
    expect(finishPurchase(db, paid.id, { status: 'failed', reason: 'again' }, NOW)).toBeNull();

    const refused = insertPurchase(db, input, NOW);
    beginSettlement(db, refused.id, { payer: PAYER, nonce: `0x${'34'.repeat(32)}` }, NOW);
    expect(finishPurchase(db, refused.id, { status: 'failed', reason: 'the facilitator could not be reached' }, NOW)).toMatchObject({
      status: 'failed',
      reason: 'the facilitator could not be reached',
      transaction_hash: null,
      response: null,
    });
  });
});
