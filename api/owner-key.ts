import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { getOwnerKeyHash } from '../data/claims.ts';
import type { DB } from '../data/db.ts';
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
  return createHash('sha256').update(key).digest('hex');
}

/**
 * Throws 401 `unauthorized` unless `authorization` is `Bearer <the service's owner key>`.
 * @example assertOwner(db, 'api-example-com', headers.authorization);
 */
export function assertOwner(db: DB, serviceId: string, authorization: string | undefined): void {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!presented) {
    throw apiError(401, 'unauthorized', 'Send Authorization: Bearer <owner_key>; a key comes from a verified claim (POST /api/v1/claims).', {
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
  const stored = getOwnerKeyHash(db, serviceId);
  // Hashing both sides gives equal lengths, so the comparison takes the same time whatever was presented.
  const expected = Buffer.from(stored ?? hashOwnerKey(''), 'hex');
  const matches = timingSafeEqual(Buffer.from(hashOwnerKey(presented), 'hex'), expected) && stored !== null;
  if (!matches) {
    throw apiError(401, 'unauthorized', 'That key is not the owner key of this service (a newer verified claim replaces it).', {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    });
  }
}
