import { STATUS_CODES } from 'node:http';
import type { H3Event, Middleware } from 'h3';
import { FastResponse, type ServerRequest } from 'srvx';
import { digest } from '../data/digest.ts';
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
  'access-control-max-age': '86400',
};
/** The request headers a preflight allows when it names none: every header the API reads. */
const ALLOWED_REQUEST_HEADERS = 'Content-Type, Idempotency-Key, If-None-Match, PAYMENT-SIGNATURE';

/** A stored answer: JSON as UTF-8 bytes with its digest (data/digest.ts), as data/detail-cache.ts holds them. */
export interface StoredAnswer {
  readonly body: Uint8Array;
  readonly digest: string;
}

/**
 * A stored answer a handler returns: the layer sends its bytes as they are instead of serializing a value, and
 * makes its ETag from the digest instead of hashing.
 * @example const { body, digest } = details.read(id)!; return new JsonBytes(body, digest);
 */
export class JsonBytes implements StoredAnswer {
  constructor(
    readonly body: Uint8Array,
    readonly digest: string,
  ) {}
}

export interface HttpLayer {
  /** The middleware every routed request passes. */
  middleware: Middleware;
  /**
   * A stored answer to a GET or HEAD read that skips the router (api/fast-detail.ts), with what the middleware
   * would give it: the client's token spent first (a client over its limit gets 429 and `read` is never called),
   * the same headers, 304 and HEAD handling, a failed `read` rendered in the Error shape. Null when `read` finds
   * nothing, for the router to answer; the token this request spent is not spent again there.
   */
  answerStored(request: ServerRequest, read: () => StoredAnswer | null): Response | null;
}

/**
 * The one layer every request passes: rate limit, CORS, preflight, and the rendering of what a handler returns
 * (JSON with cache headers and an ETag on reads, `no-store` on writes) or throws (the Error shape).
 * @example app.use(createHttpLayer({ limiter, rateLimit, trustProxy: false, nowMs: Date.now }).middleware);
 */
export function createHttpLayer(options: HttpLayerOptions): HttpLayer {
  const { limit, windowSeconds } = options.rateLimit;
  const fixedHeaders = Object.entries({
    ...CORS_HEADERS,
    'ratelimit-limit': String(limit),
    'ratelimit-policy': `${limit};w=${windowSeconds}`,
  });
  // One token a request: one the router is handed after a pass in front of it (answerStored) is not taken again.
  const spent = new WeakMap<ServerRequest, Taken>();
  const take = (request: ServerRequest): Taken =>
    spent.get(request) ?? options.limiter.take(toClientAddress(request, options.trustProxy), options.nowMs());
  /** The tokens left after a take, or the 429 thrown when there were none. */
  const admit = (taken: Taken): number => {
    if (!taken.allowed) {
      throw apiError(429, 'rate_limited', `Over ${limit} requests per ${windowSeconds} s. Retry after the Retry-After seconds.`, {
        headers: { 'retry-after': String(taken.retryAfterSeconds), 'ratelimit-remaining': '0' },
      });
    }
    return taken.remaining;
  };
  const errorResponse = (error: unknown, remaining: number): Response => {
    const rendering = toErrorBody(error);
    return jsonResponse(JSON.stringify(rendering.body), rendering.status, {
      ...toHeaders(fixedHeaders, remaining),
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...rendering.headers,
    });
  };

  const middleware: Middleware = async (event, next) => {
    let remaining = limit;
    try {
      if (isRateLimited(event)) remaining = admit(take(event.req));
      if (event.req.method === 'OPTIONS') return toPreflightResponse(event, toHeaders(fixedHeaders, remaining));
      if (hasMalformedEscape(event.url.pathname)) {
        throw apiError(400, 'not_found', 'The path has a malformed percent-escape, so it names nothing here. See /openapi.json.');
      }
      const result = await next();
      return toResponse(event.req, result, fixedHeaders, remaining);
    } catch (error) {
      return errorResponse(error, remaining);
    }
  };

  return {
    middleware,
    answerStored(request, read) {
      const taken = take(request);
      let remaining = limit;
      try {
        remaining = admit(taken);
        const answer = read();
        if (answer) return storedResponse(request, answer, toJsonHeaders(fixedHeaders, remaining, true));
        spent.set(request, taken);
        return null;
      } catch (error) {
        return errorResponse(error, remaining);
      }
    },
  };
}

type Taken = ReturnType<RateLimiter['take']>;

function toHeaders(fixedHeaders: Array<[string, string]>, remaining: number): Record<string, string> {
  const headers: Record<string, string> = { 'ratelimit-remaining': String(remaining) };
  for (const [name, value] of fixedHeaders) headers[name] = value;
  return headers;
}

/** The API spends tokens; the site's pages and assets (static files any CDN serves) do not. */
function isRateLimited(event: H3Event): boolean {
  const path = event.url.pathname;
  return path.startsWith('/api/') || path === '/api' || path === '/openapi.json';
}

/**
 * The client a token bucket belongs to: the socket's address, or behind a trusted proxy the address that proxy
 * appended last to `X-Forwarded-For` (the entries before it are whatever the client sent).
 */
function toClientAddress(request: ServerRequest, trustProxy: boolean): string {
  const forwarded = trustProxy ? request.headers.get('x-forwarded-for')?.split(',').pop()?.trim() : undefined;
  return forwarded || request.ip || 'unknown';
}

/** Any OPTIONS request: the CORS preflight answer, allowing whichever request headers the preflight names. */
function toPreflightResponse(event: H3Event, headers: Record<string, string>): Response {
  const requested = event.req.headers.get('access-control-request-headers')?.trim();
  return jsonResponse(null, 204, {
    ...headers,
    ...PREFLIGHT_HEADERS,
    'access-control-allow-headers': requested || ALLOWED_REQUEST_HEADERS,
  });
}

function hasMalformedEscape(pathname: string): boolean {
  if (!pathname.includes('%')) return false;
  try {
    decodeURI(pathname);
    return false;
  } catch {
    return true;
  }
}

/** What a handler returned, as JSON with the layer's headers (a `Response` keeps its own and gains the missing ones). */
function toResponse(request: ServerRequest, result: unknown, fixedHeaders: Array<[string, string]>, remaining: number): Response {
  if (result instanceof Response) {
    for (const [name, value] of Object.entries(toHeaders(fixedHeaders, remaining))) {
      if (!result.headers.has(name)) result.headers.set(name, value);
    }
    return result;
  }
  const read = request.method === 'GET' || request.method === 'HEAD';
  const headers = toJsonHeaders(fixedHeaders, remaining, read);
  if (!read) return jsonResponse(result instanceof JsonBytes ? result.body : JSON.stringify(result), 200, headers);
  if (result instanceof JsonBytes) return storedResponse(request, result, headers);
  const body = JSON.stringify(result);
  return readResponse(request, body, toEtag(body), headers);
}

/** The headers of a JSON answer: cacheable for a read, `no-store` for a write. */
function toJsonHeaders(fixedHeaders: Array<[string, string]>, remaining: number, read: boolean): Record<string, string> {
  const headers = toHeaders(fixedHeaders, remaining);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['cache-control'] = read ? READ_CACHE : 'no-store';
  return headers;
}

/** A read's answer from stored bytes, its ETag made from their digest. */
function storedResponse(request: ServerRequest, answer: StoredAnswer, headers: Record<string, string>): Response {
  return readResponse(request, answer.body, `W/"${answer.digest}"`, headers);
}

/** A read's answer: 304 when the client holds this ETag, no body for HEAD. */
function readResponse(request: ServerRequest, body: string | Uint8Array, etag: string, headers: Record<string, string>): Response {
  headers.etag = etag;
  if (matchesEtag(request.headers.get('if-none-match'), etag)) return jsonResponse(null, 304, headers);
  const method = request.method;
  if (method === 'HEAD') headers['content-length'] = String(Buffer.byteLength(body));
  return jsonResponse(method === 'HEAD' ? null : body, 200, headers);
}

/**
 * Every answer of the layer: srvx's `FastResponse` with plain-object headers, which the Node adapter writes without
 * building a web `Response` or `Headers`; with its reason phrase, which srvx would otherwise leave empty.
 */
function jsonResponse(body: string | Uint8Array | null, status: number, headers: Record<string, string>): Response {
  return new FastResponse(body as BodyInit | null, { status, statusText: STATUS_CODES[status], headers });
}

/**
 * A weak ETag: the digest of the body without its leading `generated_at`, which changes on every response while the
 * data it describes does not.
 */
function toEtag(body: string): string {
  const stable = body.startsWith('{"generated_at":') ? body.slice(body.indexOf(',')) : body;
  return `W/"${digest(stable)}"`;
}

function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate === etag || `W/${candidate}` === etag;
  });
}
