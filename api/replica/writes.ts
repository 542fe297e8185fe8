import type { IncomingMessage, ServerResponse } from 'node:http';

/** Methods that only read: a replica answers them itself. OPTIONS is the CORS preflight of any route. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request writes: any other method than GET, HEAD or OPTIONS under `/api/` or at `/mcp` (submissions,
 * purchases, claims, webhooks, MCP calls). A replica's database is a copy that the next one replaces, so a write
 * must reach the one writer.
 * @example isWrite('POST', '/api/v1/submit') // true
 */
export function isWrite(method: string, url: string): boolean {
  if (READ_METHODS.has(method.toUpperCase())) return false;
  const path = url.split('?', 1)[0]!;
  return path.startsWith('/api/') || path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * Answers a write with 307 to the same path and query on the primary (307 keeps the method and body, so a client
 * that follows it makes the same request there); answers true when it did.
 * @example server.on('request', (req, res) => redirectWrite(req, res, 'https://index.example') || app(req, res));
 */
export function redirectWrite(request: IncomingMessage, response: ServerResponse, primaryUrl: string): boolean {
  const url = request.url ?? '/';
  if (!isWrite(request.method ?? 'GET', url)) return false;
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
