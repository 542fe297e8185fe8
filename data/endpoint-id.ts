import { createHash } from 'node:crypto';

/** Characters of an id before its hash: the whole id stays within the contract's 100. */
const MAX_HEAD = 90;

/**
 * An endpoint's id: its service id, method and URL path as a readable slug, then 8 hex characters of a digest of the
 * method and URL, so two URLs whose slugs agree (`/a/b`, `/a-b`) never share an id; the same endpoint gets the same
 * id in every crawl. Matches `^[a-z0-9][a-z0-9._-]{0,99}$`.
 * @example toEndpointId('api-example-com', 'GET', 'https://api.example.com/v1/quote') // 'api-example-com.get.v1-quote-…'
 */
export function toEndpointId(serviceId: string, method: string | null, url: string): string {
  const verb = (method ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'any';
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  const slug = path.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  const head = [serviceId, verb, slug].filter(Boolean).join('.').slice(0, MAX_HEAD).replace(/[-.]+$/, '');
  const hash = createHash('sha256').update(`${verb} ${url}`).digest('hex').slice(0, 8);
  return `${head}-${hash}`;
}
