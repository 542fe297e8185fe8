import { randomBytes } from 'node:crypto';
import { preparedOnce, type DB } from './db.ts';
import { storeServiceDetail } from './service-detail.ts';

/*
 * Claims of a service's host and the owner keys they earn (DESIGN.md "Owners and operators"). A claim's secret and an
 * owner key are stored only as SHA-256 digests (the caller makes and digests them: api/owner-key.ts); one service has
 * one key, the newest verified claim's.
 */

/** How long a claim can be verified after it is made. */
export const CLAIM_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export interface ClaimRecord {
  id: string;
  service_id: string;
  token: string;
  /** The digest (hex) of the secret that verifying the claim needs; null for a claim made before claims had one. */
  secret_digest: string | null;
  client: string;
  status: 'pending' | 'verified';
  attempts: number;
  last_result: string | null;
  created_at: string;
  expires_at: string;
  verified_at: string | null;
}

/** A claim as an operator lists it: neither the token nor the secret's digest. */
export type ClaimListing = Omit<ClaimRecord, 'token' | 'secret_digest'>;

const LISTED = 'id, service_id, client, status, attempts, last_result, created_at, expires_at, verified_at';
const COLUMNS = `${LISTED}, token, secret_digest`;

const statements = preparedOnce({
  insert: `INSERT INTO claims (id, service_id, token, secret_digest, client, status, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) RETURNING ${COLUMNS}`,
  byId: `SELECT ${COLUMNS} FROM claims WHERE id = ?`,
  attempt: `UPDATE claims SET attempts = attempts + 1, last_result = ? WHERE id = ?`,
  verify: `UPDATE claims SET status = 'verified', attempts = attempts + 1, last_result = 'verified', verified_at = ?
    WHERE id = ? AND status = 'pending'`,
  setKey: `INSERT INTO owner_keys (service_id, key_hash, claim_id, verified_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (service_id) DO UPDATE SET key_hash = excluded.key_hash, claim_id = excluded.claim_id,
      verified_at = excluded.verified_at`,
  keyHash: `SELECT key_hash FROM owner_keys WHERE service_id = ?`,
  markVerified: `UPDATE services SET owner_verified = 1 WHERE id = ? AND owner_verified = 0`,
  all: `SELECT ${LISTED} FROM claims ORDER BY created_at DESC, id LIMIT ?`,
  ofService: `SELECT ${LISTED} FROM claims WHERE service_id = ? ORDER BY created_at DESC, id LIMIT ?`,
});

/**
 * A new claim of a service's host by a client, with the token the owner must serve and the digest of the secret that
 * verifying it needs; it expires after 7 days.
 * @example createClaim(db, { service_id: 'api-example-com', secret_digest, client: '203.0.113.9', now: new Date() })
 */
export function createClaim(db: DB, input: { service_id: string; secret_digest: string; client: string; now: Date }): ClaimRecord {
  const expires = new Date(input.now.getTime() + CLAIM_LIFETIME_MS).toISOString();
  const token = `psi-verify-${randomBytes(24).toString('base64url')}`;
  return statements(db).insert.get(
    newClaimId(), input.service_id, token, input.secret_digest, input.client, input.now.toISOString(), expires,
  ) as ClaimRecord;
}

/** One claim, or null. */
export function getClaim(db: DB, id: string): ClaimRecord | null {
  return (statements(db).byId.get(id) as ClaimRecord | undefined) ?? null;
}

/** A verification that found no token: counted, with what it found instead. */
export function recordClaimAttempt(db: DB, id: string, result: string): void {
  statements(db).attempt.run(result.slice(0, 500), id);
}

/**
 * A verified claim: its key (as a hash) becomes the service's only owner key, replacing any earlier one, and the
 * service shows `owner_verified`. False when the claim was verified already (a concurrent verification won).
 * @example verifyClaim(db, claim, sha256(key), new Date().toISOString())
 */
export function verifyClaim(db: DB, claim: Pick<ClaimRecord, 'id' | 'service_id'>, keyHash: string, now: string): boolean {
  return db.transaction((): boolean => {
    const s = statements(db);
    if (s.verify.run(now, claim.id).changes === 0) return false;
    s.setKey.run(claim.service_id, keyHash, claim.id, now);
    s.markVerified.run(claim.service_id);
    storeServiceDetail(db, claim.service_id, now);
    return true;
  }).immediate();
}

/** The hash of the service's owner key, or null when no owner verified. */
export function getOwnerKeyHash(db: DB, serviceId: string): string | null {
  return (statements(db).keyHash.pluck().get(serviceId) as string | undefined) ?? null;
}

/** The newest claims (of one service, when given), newest first, without their tokens and secrets. */
export function listClaims(db: DB, options: { service?: string; limit?: number } = {}): ClaimListing[] {
  const s = statements(db);
  const limit = options.limit ?? 100;
  return (options.service ? s.ofService.all(options.service, limit) : s.all.all(limit)) as ClaimListing[];
}

function newClaimId(): string {
  return `clm_${randomBytes(12).toString('base64url')}`;
}
