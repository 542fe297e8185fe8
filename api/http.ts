import { createHash } from 'node:crypto';
import { getRequestIP, HTTPResponse, type H3Event, type Middleware } from 'h3';
import { apiError, toErrorBody } from './errors.ts';
import type { RateLimiter } from './ratelimit.ts';

export interface HttpLayerOptions {
  limiter: RateLimiter;
  rateLimit: { limit: number; windowSeconds: number };
  trustProxy: boolean;
  nowMs: () => number;
}

const READ_CACHE = 'public, max-age=60, s-maxage=300';
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'RateLimit-Limit, RateLimit-Policy, RateLimit-Remaining, Retry-After, ETag, PAYMENT-REQUIRED, PAYMENT-RESPONSE',
};
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type, Idempotency-Key, If-None-Match, PAYMENT-SIGNATURE',
  'access-control-max-age': '86400',
};

/**
 * The one middleware every request passes: rate limit, CORS, preflight, and the rendering of what a handler
 * returns (JSON with cache headers and an ETag on reads, `no-store` on writes) or throws (the Error shape).
 * @example app.use(createHttpLayer({ limiter, rateLimit, trustProxy: false, nowMs: Date.now }));
 */
export function createHttpLayer(options: HttpLayerOptions): Middleware {
  const { limit, windowSeconds } = options.rateLimit;
  const limitHeaders = { 'ratelimit-limit': String(limit), 'ratelimit-policy': `${limit};w=${windowSeconds}` };

  return async (event, next) => {
    const headers: Record<string, string> = { ...CORS_HEADERS, ...limitHeaders };
    try {
      const client = getRequestIP(event, { xForwardedFor: options.trustProxy }) ?? 'unknown';
      const taken = isRateLimited(event) ? options.limiter.take(client, options.nowMs()) : { allowed: true as const, remaining: limit };
      if (!taken.allowed) {
        throw apiError(429, 'rate_limited', `Over ${limit} requests per ${windowSeconds} s. Retry after the Retry-After seconds.`, {
          headers: { 'retry-after': String(taken.retryAfterSeconds), 'ratelimit-remaining': '0' },
        });
      }
      headers['ratelimit-remaining'] = String(taken.remaining);
      if (isPreflight(event)) return new HTTPResponse(null, { status: 204, headers: { ...headers, ...PREFLIGHT_HEADERS } });
      const result = await next();
      return toResponse(event, result, headers);
    } catch (error) {
      const rendering = toErrorBody(error);
      return new HTTPResponse(JSON.stringify(rendering.body), {
        status: rendering.status,
        headers: { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store', ...rendering.headers },
      });
    }
  };
}

/** The API spends tokens; the site's pages and assets (static files any CDN serves) do not. */
function isRateLimited(event: H3Event): boolean {
  const path = event.url.pathname;
  return path.startsWith('/api/') || path === '/api' || path === '/openapi.json';
}

function isPreflight(event: H3Event): boolean {
  return event.req.method === 'OPTIONS' && event.req.headers.has('access-control-request-method');
}

/** h3's own response type: its Node adapter writes it without building a web `Response` (several times faster). */
function toResponse(event: H3Event, result: unknown, headers: Record<string, string>): Response | string {
  if (result instanceof Response) {
    for (const [name, value] of Object.entries(headers)) {
      if (!result.headers.has(name)) result.headers.set(name, value);
    }
    return result;
  }
  const body = JSON.stringify(result);
  const read = event.req.method === 'GET' || event.req.method === 'HEAD';
  const etag = read ? toEtag(body) : null;
  const notModified = etag !== null && matchesEtag(event.req.headers.get('if-none-match'), etag);
  // Headers on event.res and a string body: h3 writes that straight to the socket, without building a Response.
  const responseHeaders = event.res.headers;
  for (const [name, value] of Object.entries(headers)) responseHeaders.set(name, value);
  responseHeaders.set('content-type', 'application/json; charset=utf-8');
  responseHeaders.set('cache-control', read ? READ_CACHE : 'no-store');
  if (etag !== null) responseHeaders.set('etag', etag);
  if (notModified) {
    event.res.status = 304;
    return '';
  }
  return event.req.method === 'HEAD' ? '' : body;
}

/**
 * A weak ETag over the body without its leading `generated_at`, which changes on every response
 * while the data it describes does not.
 */
function toEtag(body: string): string {
  const stable = body.startsWith('{"generated_at":') ? body.slice(body.indexOf(',')) : body;
  return `W/"${createHash('sha1').update(stable).digest('base64url')}"`;
}

function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate === etag || `W/${candidate}` === etag;
  });
}
