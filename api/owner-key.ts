import { randomBytes } from 'node:crypto';
import { getOwnerKeyHash } from '../data/claims.ts';
import type { DB } from '../data/db.ts';
import { digestSecret, matchesDigest, readBearer } from './bearer.ts';
import { apiError } from './errors.ts';

/*
 * Owner keys: 256 random bits, shown once when a claim is verified, stored only as a SHA-256 hash (a key this random
 * needs no slow hash: nothing can be guessed from its hash), and compared in constant time.
 */

/** A new owner key: `psi_` and 43 base64url characters (32 random bytes). */
export function newOwnerKey(): string {
  return `psi_${randomBytes(32).toString('base64url')}`;
}

/** The hash an owner key is stored as. */
export function hashOwnerKey(key: string): string {
  return digestSecret(key).toString('hex');
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
  const stored = getOwnerKeyHash(db, serviceId);
  // A service with no owner is compared against the empty key's digest, so its answer takes the same time.
  const matches = matchesDigest(presented, Buffer.from(stored ?? hashOwnerKey(''), 'hex')) && stored !== null;
  if (!matches) {
    throw apiError(401, 'unauthorized', 'That key is not the owner key of this service (a newer verified claim replaces it).', {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    });
  }
}
