import { hash } from 'node:crypto';

/**
 * A short digest of an answer's text (SHA-1, base64url): what the API's ETags are made of. Stored answers keep
 * theirs beside them so a read does not hash.
 * @example digest('{"id":"api-example-com"}'); // 'm4Yy...'
 */
export function digest(text: string): string {
  return hash('sha1', text, 'base64url');
}
