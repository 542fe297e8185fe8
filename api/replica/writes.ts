import type { IncomingMessage, ServerResponse } from 'node:http';

/** Methods that only read: a replica answers them itself. OPTIONS is the CORS preflight of any route. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Routes whose data the public copy leaves out (data/public-copy.ts): webhooks, claims, purchases and submissions,
 * their API and their pages. Only the writer holds them, so a replica sends reads of them there too.
 */
const PRIMARY_ONLY = ['/api/v1/webhooks', '/api/v1/claims', '/api/v1/purchases', '/api/v1/purchase', '/api/v1/submissions', '/purchase', '/submissions'];

/**
 * Whether a request writes: any other method than GET, HEAD or OPTIONS under `/api/` or at `/mcp` (submissions,
 * purchases, claims, webhooks, MCP calls). A replica's database is a copy that the next one replaces, so a write
 * must reach the one writer.
 * @example isWrite('POST', '/api/v1/submit') // true
 */
export function isWrite(method: string, url: string): boolean {
  if (READ_METHODS.has(method.toUpperCase())) return false;
  const path = toPath(url);
  return path.startsWith('/api/') || path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * Whether a read is of data only the writer holds (any method but the CORS preflight, which the replica answers).
 * @example isPrimaryOnly('GET', '/api/v1/webhooks/wh_1') // true
 */
export function isPrimaryOnly(method: string, url: string): boolean {
  if (method.toUpperCase() === 'OPTIONS') return false;
  const path = toPath(url);
  return PRIMARY_ONLY.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * Answers a write, or a request for data only the writer holds, with 307 to the same path and query on the primary
 * (307 keeps the method and body, so a client that follows it makes the same request there); answers true when it
 * did.
 * @example server.on('request', (req, res) => redirectToPrimary(req, res, 'https://index.example') || app(req, res));
 */
export function redirectToPrimary(request: IncomingMessage, response: ServerResponse, primaryUrl: string): boolean {
  const url = request.url ?? '/';
  const method = request.method ?? 'GET';
  if (!isWrite(method, url) && !isPrimaryOnly(method, url)) return false;
  request.resume();
  response.writeHead(307, {
    location: `${primaryUrl}${url.startsWith('/') ? url : new URL(url).pathname + new URL(url).search}`,
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'Location',
    'cache-control': 'no-store',
    'content-length': '0',
  });
  response.end();
  return true;
}

/** The path of a request target (`/a?b` or an absolute URL). */
function toPath(url: string): string {
  return url.startsWith('/') ? url.split('?', 1)[0]! : new URL(url).pathname;
}
