import { randomBytes } from 'node:crypto';
import { preparedOnce, type DB } from './db.ts';

/** A purchase waits this long for the owner's approval, then expires. */
export const PURCHASE_TTL_MS = 300_000;

export const PURCHASE_STATUSES = ['awaiting_approval', 'settling', 'completed', 'failed', 'expired'] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];

export interface PurchaseInput {
  service_id: string;
  params: Record<string, string | number>;
  resource_url: string;
  amount_atomic: string;
  pay_to: string;
  network: string;
  asset: string;
}

export interface PurchaseRecord extends PurchaseInput {
  id: string;
  status: PurchaseStatus;
  reason: string | null;
  payer: string | null;
  transaction_hash: string | null;
  response: object | null;
  created_at: string;
  expires_at: string;
  updated_at: string;
}

export type PurchaseOutcome =
  | { status: 'completed'; transaction_hash: string; response: object }
  | { status: 'failed'; reason: string; transaction_hash?: string | null };

/** Why an approval could not start settling. */
export type SettlementRefusal = 'not_found' | 'expired' | 'already_approved' | 'nonce_used';

type Row = Omit<PurchaseRecord, 'params' | 'response'> & { params: string; response: string | null };

const COLUMNS = `id, service_id, params, resource_url, amount_atomic, pay_to, network, asset, status, reason, payer,
  transaction_hash, response, created_at, expires_at, updated_at`;

const statements = preparedOnce({
  insert: `INSERT INTO purchases (id, service_id, params, resource_url, amount_atomic, pay_to, network, asset, status,
      created_at, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'awaiting_approval', ?, ?, ?) RETURNING ${COLUMNS}`,
  expire: `UPDATE purchases SET status = 'expired', updated_at = ?
    WHERE id = ? AND status = 'awaiting_approval' AND expires_at <= ?`,
  byId: `SELECT ${COLUMNS} FROM purchases WHERE id = ?`,
  nonceUsed: 'SELECT 1 FROM purchases WHERE lower(payer) = lower(?) AND lower(nonce) = lower(?) AND nonce IS NOT NULL',
  settle: `UPDATE purchases SET status = 'settling', payer = ?, nonce = ?, updated_at = ?
    WHERE id = ? AND status = 'awaiting_approval'`,
  finish: `UPDATE purchases SET status = ?, reason = ?, transaction_hash = ?, response = ?, updated_at = ?
    WHERE id = ? AND status = 'settling' RETURNING ${COLUMNS}`,
  decline: `UPDATE purchases SET status = 'failed', reason = ?, updated_at = ?
    WHERE id = ? AND status = 'awaiting_approval' AND expires_at > ? RETURNING ${COLUMNS}`,
});

/** The reason a declined purchase carries, for the agent that follows it. */
export const DECLINED_REASON = 'The owner declined this purchase: nothing was signed or paid.';

/**
 * Records a purchase awaiting the owner's approval, with an unguessable id; it expires after 300 s.
 * @example const purchase = insertPurchase(db, { service_id: 'index-demo-web-search', ... }, new Date());
 */
export function insertPurchase(db: DB, input: PurchaseInput, now: Date): PurchaseRecord {
  const at = now.toISOString();
  const expiresAt = new Date(now.getTime() + PURCHASE_TTL_MS).toISOString();
  const row = statements(db).insert.get(newPurchaseId(), input.service_id, JSON.stringify(input.params), input.resource_url,
    input.amount_atomic, input.pay_to, input.network, input.asset, at, expiresAt, at) as Row;
  return toRecord(row);
}

/** One purchase, or null; a purchase still awaiting approval past its expiry is marked expired first. */
export function getPurchase(db: DB, id: string, now: Date): PurchaseRecord | null {
  const s = statements(db);
  const at = now.toISOString();
  s.expire.run(at, id, at);
  const row = s.byId.get(id) as Row | undefined;
  return row ? toRecord(row) : null;
}

/**
 * Moves an approved purchase to `settling`, recording the payer and the authorization's nonce, atomically:
 * of two concurrent approvals one wins; a nonce the same payer already used anywhere is refused.
 * @example const result = beginSettlement(db, id, { payer, nonce }, new Date()); if (!result.ok) refuse(result.refusal);
 */
export function beginSettlement(
  db: DB,
  id: string,
  approval: { payer: string; nonce: string },
  now: Date,
): { ok: true; purchase: PurchaseRecord } | { ok: false; refusal: SettlementRefusal } {
  const s = statements(db);
  return db.transaction(() => {
    const purchase = getPurchase(db, id, now);
    if (!purchase) return { ok: false as const, refusal: 'not_found' as const };
    if (purchase.status === 'expired') return { ok: false as const, refusal: 'expired' as const };
    if (purchase.status !== 'awaiting_approval') return { ok: false as const, refusal: 'already_approved' as const };
    if (s.nonceUsed.get(approval.payer, approval.nonce)) return { ok: false as const, refusal: 'nonce_used' as const };
    s.settle.run(approval.payer, approval.nonce, now.toISOString(), id);
    return { ok: true as const, purchase: { ...purchase, status: 'settling' as const, payer: approval.payer } };
  }).immediate();
}

/**
 * Records how settlement ended: `completed` with the transaction hash and the service's answer, or `failed` with the reason.
 * @example finishPurchase(db, id, { status: 'failed', reason: 'the facilitator could not be reached' }, new Date());
 */
export function finishPurchase(db: DB, id: string, outcome: PurchaseOutcome, now: Date): PurchaseRecord | null {
  const completed = outcome.status === 'completed';
  const row = statements(db).finish.get(
    outcome.status,
    completed ? null : outcome.reason,
    outcome.transaction_hash ?? null,
    completed ? JSON.stringify(outcome.response) : null,
    now.toISOString(),
    id,
  ) as Row | undefined;
  return row ? toRecord(row) : null;
}

/**
 * The owner declines a purchase still awaiting approval: it fails with DECLINED_REASON. Answers the purchase, or null
 * when it was no longer awaiting approval (approved, settled, expired) or does not exist.
 * @example recordDecline(db, id, new Date())?.status // 'failed'
 */
export function recordDecline(db: DB, id: string, now: Date): PurchaseRecord | null {
  const at = now.toISOString();
  const row = statements(db).decline.get(DECLINED_REASON, at, id, at) as Row | undefined;
  return row ? toRecord(row) : null;
}

function toRecord(row: Row): PurchaseRecord {
  return { ...row, params: JSON.parse(row.params), response: row.response === null ? null : JSON.parse(row.response) };
}

function newPurchaseId(): string {
  return `pur_${randomBytes(16).toString('base64url')}`;
}
