import { randomBytes } from 'node:crypto';
import { getOwnerKeyHash, type ClaimRecord } from '../data/claims.ts';
import type { DB } from '../data/db.ts';
import { digestSecret, matchesDigest, readBearer } from './bearer.ts';
import { apiError } from './errors.ts';

/*
 * Owner keys and claim secrets: 256 random bits each, shown once (a key when its claim is verified, a secret when its
 * claim is made), stored only as a SHA-256 digest (a secret this random needs no slow hash: nothing can be guessed
 * from its digest), and compared in constant time.
 */

/** A new owner key: `psi_` and 43 base64url characters (32 random bytes). */
export function newOwnerKey(): string {
  return `psi_${randomBytes(32).toString('base64url')}`;
}

/** A new claim secret: `clms_` and 43 base64url characters (32 random bytes). */
export function newClaimSecret(): string {
  return `clms_${randomBytes(32).toString('base64url')}`;
}

/** The digest (hex) an owner key or a claim secret is stored as. */
export function hashSecret(secret: string): string {
  return digestSecret(secret).toString('hex');
}

/**
 * Throws 401 `unauthorized` unless `authorization` is `Bearer <the service's owner key>`.
 * @example assertOwner(db, 'api-example-com', headers.authorization);
 */
export function assertOwner(db: DB, serviceId: string, authorization: string | undefined): void {
  const presented = readBearer(authorization);
  if (!presented) {
    throw apiError(401, 'unauthorized', 'Send Authorization: Bearer <owner_key>; a key comes from a verified claim (POST /api/v1/claims).', {
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
  if (!matchesHeld(presented, getOwnerKeyHash(db, serviceId))) {
    throw apiError(401, 'unauthorized', 'That key is not the owner key of this service (a newer verified claim replaces it).', {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    });
  }
}

/**
 * Throws 401 `unauthorized` unless `authorization` is `Bearer <the claim's secret>`. An unknown claim answers the same
 * 401 as a wrong secret, so a request without the secret learns nothing of the claim, not even that it exists.
 * @example assertClaimSecret(getClaim(db, id), headers.authorization);
 */
export function assertClaimSecret(claim: ClaimRecord | null, authorization: string | undefined): asserts claim is ClaimRecord {
  const presented = readBearer(authorization);
  if (!presented || !matchesHeld(presented, claim?.secret_digest ?? null)) {
    throw apiError(401, 'unauthorized', 'Send Authorization: Bearer <claim_secret>, the secret POST /api/v1/claims answered with this claim\'s id.', {
      headers: { 'www-authenticate': presented ? 'Bearer error="invalid_token"' : 'Bearer' },
    });
  }
}

/**
 * Whether `presented` is the secret whose digest is held. Nothing held is never a match, and is compared against the
 * empty secret's digest first, so its answer takes the same time.
 */
function matchesHeld(presented: string, heldHex: string | null): boolean {
  return matchesDigest(presented, Buffer.from(heldHex ?? hashSecret(''), 'hex')) && heldHex !== null;
}
