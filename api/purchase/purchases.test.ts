import { describe, expect, it } from 'vitest';
import { ErrorResponse } from '../../domain/schemas.ts';
import { createTestApp, postJson } from '../testing.ts';
import { Purchase } from './schemas.ts';
import { SPEC_SERVICES } from './testing/spec-table.ts';

const STAGING = 'https://staging.index.test';
const PAY_TO = '0x00000000000000000000000000000000000Fee01';

describe('POST /api/v1/purchases and GET /api/v1/purchases/{id}', () => {
  it('creates a purchase awaiting the owner, with the terms, expiry and approval URL, defaults applied', async () => {
    let nowMs = Date.parse('2026-11-01T12:00:00Z');
    const { request } = createTestApp([], { now: () => new Date(nowMs), config: { stagingUrl: STAGING, payToAddress: PAY_TO } });
    const { status, headers, json } = await request('/api/v1/purchases', postJson({ service_id: 'index-demo-web-search', params: { query_id: 'base-sepolia-faucet' } }));
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    const purchase = Purchase.parse(json);
    expect(purchase).toMatchObject({
      status: 'awaiting_approval',
      reason: null,
      service_id: 'index-demo-web-search',
      params: { query_id: 'base-sepolia-faucet', max_results: 5 },
      amount: { decimal: '0.003', atomic: '3000' },
      pay_to: PAY_TO,
      network: 'eip155:84532',
      asset: { symbol: 'USDC', address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 },
      payment_requirements: { scheme: 'exact', amount: '3000', payTo: PAY_TO, maxTimeoutSeconds: 300, extra: { name: 'USDC', version: '2' } },
      approve_url: `${STAGING}/purchase/${purchase.id}`,
      created_at: '2026-11-01T12:00:00.000Z',
      expires_at: '2026-11-01T12:05:00.000Z',
      payer: null,
      transaction: null,
      response: null,
    });
    expect(purchase.id).toMatch(/^pur_[A-Za-z0-9_-]{22}$/);

    const read = await request(`/api/v1/purchases/${purchase.id}`);
    expect(read.headers.get('cache-control')).toBe('no-store');
    expect(Purchase.parse(read.json)).toEqual(purchase);
    nowMs += 300_000;
    expect(Purchase.parse((await request(`/api/v1/purchases/${purchase.id}`)).json).status).toBe('expired');
    expect((await request('/api/v1/purchases/pur_nothing')).status).toBe(404);
  });

  it.each(SPEC_SERVICES)('validates $id parameters like the service itself: 400 missing_query naming the parameter', async (spec) => {
    const { request, db } = createTestApp();
    const valid = Object.fromEntries(spec.params.filter((p) => p.required).map((p) => [p.name, p.values.at(-1)!]));
    expect((await request('/api/v1/purchases', postJson({ service_id: spec.id, params: valid }))).status).toBe(200);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid, extra: 'x' }, 'extra'],
      ...spec.params.filter((p) => p.required).map((p): [Record<string, unknown>, string] => [{ ...valid, [p.name]: undefined }, p.name]),
      ...spec.params.map((p): [Record<string, unknown>, string] => [{ ...valid, [p.name]: 'nope' }, p.name]),
      ...spec.params.map((p): [Record<string, unknown>, string] => [{ ...valid, [p.name]: [p.values[0]] }, p.name]),
    ];
    for (const [params, name] of cases) {
      const { status, json } = await request('/api/v1/purchases', postJson({ service_id: spec.id, params }));
      expect(status, JSON.stringify(params)).toBe(400);
      expect(ErrorResponse.parse(json).error).toMatchObject({ code: 'missing_query', message: expect.stringContaining(`"${name}"`) });
    }
    expect(db.prepare('SELECT count(*) AS n FROM purchases').get()).toEqual({ n: 1 });
  });

  it('lets the owner decline a purchase awaiting approval: the agent reads it failed, with the reason; nothing else can be declined', async () => {
    let nowMs = Date.parse('2026-11-01T12:00:00Z');
    const { request } = createTestApp([], { now: () => new Date(nowMs), config: { stagingUrl: STAGING } });
    const create = async () => Purchase.parse((await request('/api/v1/purchases', postJson({ service_id: 'index-demo-web-search', params: { query_id: 'base-sepolia-faucet' } }))).json);
    const purchase = await create();
    const declined = await request(`/api/v1/purchases/${purchase.id}/decline`, { method: 'POST' });
    expect(declined.status).toBe(200);
    expect(declined.headers.get('cache-control')).toBe('no-store');
    expect(Purchase.parse(declined.json)).toMatchObject({ status: 'failed', reason: 'The owner declined this purchase: nothing was signed or paid.' });
    expect(Purchase.parse((await request(`/api/v1/purchases/${purchase.id}`)).json).status).toBe('failed');

    const again = await request(`/api/v1/purchases/${purchase.id}/decline`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(ErrorResponse.parse(again.json).error).toMatchObject({ code: 'conflict', message: expect.stringContaining('failed') });
    const late = await create();
    nowMs += 300_000;
    const expired = await request(`/api/v1/purchases/${late.id}/decline`, { method: 'POST' });
    expect([expired.status, ErrorResponse.parse(expired.json).error.message]).toEqual([409, expect.stringContaining('expired')]);
    const unknown = await request('/api/v1/purchases/pur_nothing/decline', { method: 'POST' });
    expect([unknown.status, ErrorResponse.parse(unknown.json).error.code]).toEqual([404, 'not_found']);
  });

  it('takes integer parameters as numbers or digit strings', async () => {
    const { request } = createTestApp();
    for (const max_eur of [150, '150']) {
      const { json } = await request('/api/v1/purchases', postJson({ service_id: 'index-demo-product-search', params: { query_id: 'usb-c-hub', max_eur } }));
      expect(Purchase.parse(json).params).toEqual({ query_id: 'usb-c-hub', max_eur: 150 });
    }
  });

  it.each([
    ['a body that is not JSON', 'service_id=x', 400, 'invalid_json'],
    ['a body that is an array', [], 400, 'invalid_json'],
    ['no service_id', { params: {} }, 400, 'missing_query'],
    ['params that are not an object', { service_id: 'index-demo-market-data', params: ['BTC'] }, 400, 'invalid_json'],
    ['an unknown service_id', { service_id: 'index-demo-nothing', params: {} }, 404, 'not_found'],
  ])('refuses %s', async (_, body, status, code) => {
    const { request } = createTestApp();
    const response = await request('/api/v1/purchases', postJson(body));
    expect(response.status).toBe(status);
    expect(ErrorResponse.parse(response.json).error.code).toBe(code);
  });
});
