import { createHash, timingSafeEqual } from 'node:crypto';

/*
 * Bearer secrets (owner keys, webhook secrets): read from `Authorization: Bearer <secret>` and compared by their
 * SHA-256 digests, which have one length, so the time a comparison takes tells nothing of the secret held.
 */

/**
 * The secret of an `Authorization: Bearer <secret>` header; undefined when the header is missing or not of that form.
 * @example readBearer('Bearer psi_abc') // 'psi_abc'
 */
export function readBearer(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/** The SHA-256 digest of a secret. */
export function digestSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/**
 * Whether `presented` digests to `heldDigest`, in constant time.
 * @example matchesDigest(readBearer(header) ?? '', digestSecret(webhook.secret))
 */
export function matchesDigest(presented: string, heldDigest: Buffer): boolean {
  return timingSafeEqual(digestSecret(presented), heldDigest);
}
