import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { H3Event, Middleware } from 'h3';
import { FastResponse, type ServerRequest } from 'srvx';
import { toIPv6Groups } from '../net/guard.ts';
import { digest } from '../data/digest.ts';
import { apiError, toErrorBody, type ErrorRendering } from './errors.ts';
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
  'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'access-control-max-age': '86400',
};
/** The request headers a preflight allows when it names none: every header the API reads. */
const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-None-Match, PAYMENT-SIGNATURE';

/** A stored answer: JSON (text, or UTF-8 bytes) with its digest (data/digest.ts), as data/service-detail.ts stores them. */
export interface StoredAnswer {
  readonly body: string | Uint8Array;
  readonly digest: string;
}

/**
 * A stored answer a handler returns: the layer sends it as it is instead of serializing a value, and makes its ETag
 * from the digest instead of hashing.
 * @example const { body, digest } = readServiceDetail(db, id)!; return new JsonBytes(body, digest);
 */
export class JsonBytes implements StoredAnswer {
  constructor(
    readonly body: string | Uint8Array,
    readonly digest: string,
  ) {}
}

/**
 * A JSON answer with a status and headers of its own (a demo service's 402 or paid result, a purchase), serialized once
 * so that it can be sent again: the layer adds its headers and sends it without building a web `Response` and
 * `Headers`, which cost more than the answer itself (a 402 must cost at most two detail lookups: the `pay` group).
 * @example return new JsonReply(402, { 'payment-required': header, 'cache-control': 'no-store' }, paymentRequired);
 */
export class JsonReply {
  readonly json: string;

  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    body: unknown,
  ) {
    this.json = JSON.stringify(body);
  }
}

/** What a read answers before it is a Response: what the fetch handler and the detail lane (api/detail-lane.ts) both send. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

/** A GET or HEAD lookup as the detail lane sees it, before srvx wraps it. */
export interface StoredLookup {
  method: string;
  ifNoneMatch: string | undefined;
  forwardedFor: string | undefined;
  socketAddress: string | undefined;
}

export interface HttpLayer {
  /** The middleware every routed request passes. */
  middleware: Middleware;
  /**
   * The reply to a lookup of a stored answer that skips srvx and the router (api/detail-lane.ts), with what the
   * middleware would give it: the client's token spent, the same headers, 304 and HEAD handling. Null when the client
   * is over its limit: nothing is spent then, so the router, handed the request, refuses it 429 as it would any other.
   */
  replyStored(lookup: StoredLookup, answer: StoredAnswer): Reply | null;
  /**
   * Spends `tokens` more of the request's client's bucket, for a request that carries several messages (an MCP
   * batch): the tokens left, or the layer's 429 (none spent) when the bucket cannot cover them.
   */
  spend(request: ServerRequest, tokens: number): number;
  /**
   * Node's `clientError`: a request that cannot be read as HTTP, which Node would answer with a bare status line,
   * answered in the Error shape with the layer's headers instead; the connection is closed after.
   */
  answerUnreadable(error: Error & { code?: string }, socket: Duplex): void;
}

/** The headers every answer of the layer carries (CORS, the rate-limit policy), made once. */
type FixedHeaders = Readonly<Record<string, string>>;

/** Node's own statuses for a request it cannot read (anything else is 400), with what the client can do. */
const UNREADABLE: Readonly<Record<string, { status: number; message: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'The request headers are over 16 KiB. Send fewer or shorter headers.' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'The chunk extensions of the body are too large. Send a plain JSON body.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time. Send it again.' },
};
const UNREADABLE_OTHERWISE = { status: 400, message: 'The request could not be read as HTTP/1.1. See /openapi.json for the API.' };

/**
 * The one layer every request passes: rate limit, CORS, preflight, and the rendering of what a handler returns
 * (JSON with cache headers and an ETag on reads, `no-store` on writes) or throws (the Error shape).
 * @example app.use(createHttpLayer({ limiter, rateLimit, trustProxy: false, nowMs: Date.now }).middleware);
 */
export function createHttpLayer(options: HttpLayerOptions): HttpLayer {
  const { limit, windowSeconds } = options.rateLimit;
  const fixed: FixedHeaders = { ...CORS_HEADERS, 'ratelimit-limit': String(limit), 'ratelimit-policy': `${limit};w=${windowSeconds}` };
  const take = (forwardedFor: string | null | undefined, socketAddress: string | undefined): Taken =>
    options.limiter.take(toClientAddress(options.trustProxy ? forwardedFor : undefined, socketAddress), options.nowMs());
  /** The tokens left after a take, or the 429 thrown when there were none. */
  const admit = (taken: Taken): number => {
    if (!taken.allowed) {
      throw apiError(429, 'rate_limited', `Over ${limit} requests per ${windowSeconds} s. Retry after the Retry-After seconds.`, {
        headers: { 'retry-after': String(taken.retryAfterSeconds), 'ratelimit-remaining': '0' },
      });
    }
    return taken.remaining;
  };
  const errorResponse = (error: unknown, remaining: number, request: ServerRequest): Response => {
    const rendering = toErrorBody(error);
    return fastResponse(JSON.stringify(rendering.body), rendering.status, {
      ...toHeaders(fixed, remaining),
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...rendering.headers,
      ...(hasUnreadBody(request) ? { connection: 'close' } : {}),
    });
  };

  const middleware: Middleware = async (event, next) => {
    let remaining = limit;
    try {
      // A preflight spends nothing: a browser over its limit would see a refused preflight as a CORS failure, never
      // the 429 and its Retry-After.
      if (event.req.method === 'OPTIONS') return toPreflightResponse(event, fixed);
      // The API spends tokens; the site's pages and assets (static files any CDN serves) do not.
      if (isApiPath(event.url.pathname)) {
        remaining = admit(take(event.req.headers.get('x-forwarded-for'), event.req.ip));
      }
      if (hasMalformedEscape(event.url.pathname)) {
        throw apiError(400, 'not_found', 'The path has a malformed percent-escape, so it names nothing here. See /openapi.json.');
      }
      const result = await next();
      return toResponse(event.req, result, fixed, remaining);
    } catch (error) {
      return errorResponse(error, remaining, event.req);
    }
  };

  return {
    middleware,
    spend: (request, tokens) => admit(options.limiter.take(toRequestClient(request, options.trustProxy), options.nowMs(), tokens)),
    replyStored(lookup, answer) {
      const taken = take(lookup.forwardedFor, lookup.socketAddress);
      if (!taken.allowed) return null;
      const headers = toJsonHeaders(fixed, taken.remaining, true);
      return toReadReply(lookup.method, lookup.ifNoneMatch, answer.body, `W/"${answer.digest}"`, headers);
    },
    answerUnreadable(error, socket) {
      // As Node's own handler: a client that hung up, or a socket that can no longer be written, is only closed.
      if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
      const { status, message } = UNREADABLE[error.code ?? ''] ?? UNREADABLE_OTHERWISE;
      const body = JSON.stringify({ error: { code: 'invalid_json', message } } satisfies ErrorRendering['body']);
      const headers = { ...fixed, 'content-type': 'application/json', 'cache-control': 'no-store',
        'content-length': String(Buffer.byteLength(body)), connection: 'close' };
      const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
    },
  };
}

type Taken = ReturnType<RateLimiter['take']>;

/**
 * A request refused before its body was read (over 64 KiB, rate-limited, unroutable): its answer says
 * `Connection: close`, and the server closes the connection after it. Kept open, Node would discard the rest of the
 * body on it while the client's keep-alive pool counts it idle, and a later request on it met a reset (ECONNRESET).
 */
function hasUnreadBody(request: ServerRequest): boolean {
  const declared = request.headers.get('content-length');
  const sent = (declared !== null && declared !== '0') || request.headers.has('transfer-encoding');
  return sent && !request.bodyUsed;
}

function toHeaders(fixed: FixedHeaders, remaining: number): Record<string, string> {
  return { 'ratelimit-remaining': String(remaining), ...fixed };
}

/**
 * Everything under /api/ and /x402/ (the Bazaar discovery routes), the OpenAPI document and the MCP endpoint (as the
 * router matches them, with a trailing slash): JSON, never a page, and rate-limited.
 */
export function isApiPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/') || pathname.startsWith('/x402/') || JSON_PATHS.has(pathname);
}

const JSON_PATHS = new Set(['/openapi.json', '/openapi.json/', '/mcp', '/mcp/']);

/**
 * The client a token bucket belongs to: the socket's address, or behind a trusted proxy (which passes its
 * `X-Forwarded-For`) the address that proxy appended last (the entries before it are whatever the client sent);
 * an IPv6 address counts as its /64 (toClientKey).
 */
export function toClientAddress(forwardedFor: string | null | undefined, socketAddress: string | undefined): string {
  return toClientKey(forwardedFor?.split(',').pop()?.trim() || socketAddress || 'unknown');
}

/**
 * The client an address counts as: an IPv4 address as it is, also when a dual-stack socket reports it IPv4-mapped
 * (`::ffff:192.0.2.1`); an IPv6 address by the /64 it lies in, since a subscriber is handed a whole /64 and could
 * otherwise take a new address, and a new bucket for every per-client limit, with each request.
 * @example toClientKey('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 */
export function toClientKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return address;
  const groups = toIPv6Groups(bare);
  if (groups.slice(0, 6).join() === '0,0,0,0,0,65535') return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/** The client a routed request counts against, as the rate limit and every per-client limit see it. */
export function toRequestClient(request: ServerRequest, trustProxy: boolean): string {
  return toClientAddress(trustProxy ? request.headers.get('x-forwarded-for') : undefined, request.ip);
}

/** Any OPTIONS request: the CORS preflight answer, allowing whichever request headers the preflight names. */
function toPreflightResponse(event: H3Event, headers: Record<string, string>): Response {
  const requested = event.req.headers.get('access-control-request-headers')?.trim();
  return fastResponse(null, 204, {
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

/**
 * What a handler returned, as JSON with the layer's headers (a `Response` or `JsonReply` keeps its own and gains the
 * missing ones).
 */
function toResponse(request: ServerRequest, result: unknown, fixed: FixedHeaders, remaining: number): Response {
  if (result instanceof Response) {
    for (const [name, value] of Object.entries(toHeaders(fixed, remaining))) {
      if (!result.headers.has(name)) result.headers.set(name, value);
    }
    return result;
  }
  if (result instanceof JsonReply) {
    const headers = { ...toHeaders(fixed, remaining), 'content-type': 'application/json', ...result.headers };
    return fastResponse(result.json, result.status, headers);
  }
  const read = request.method === 'GET' || request.method === 'HEAD';
  const headers = toJsonHeaders(fixed, remaining, read);
  if (!read) return fastResponse(result instanceof JsonBytes ? result.body : JSON.stringify(result), 200, headers);
  if (result instanceof JsonBytes) return storedResponse(request, result, headers);
  const body = JSON.stringify(result);
  return readResponse(request, body, toEtag(body), headers);
}

/** The headers of a JSON answer: cacheable for a read, `no-store` for a write. */
function toJsonHeaders(fixed: FixedHeaders, remaining: number, read: boolean): Record<string, string> {
  const headers = toHeaders(fixed, remaining);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['cache-control'] = read ? READ_CACHE : 'no-store';
  return headers;
}

/** A read's answer from stored bytes, its ETag made from their digest. */
function storedResponse(request: ServerRequest, answer: StoredAnswer, headers: Record<string, string>): Response {
  return readResponse(request, answer.body, `W/"${answer.digest}"`, headers);
}

function readResponse(request: ServerRequest, body: string | Uint8Array, etag: string, headers: Record<string, string>): Response {
  const reply = toReadReply(request.method, request.headers.get('if-none-match') ?? undefined, body, etag, headers);
  return fastResponse(reply.body, reply.status, reply.headers);
}

/** A read's reply: 304 when the client holds this ETag, no body for HEAD. */
function toReadReply(method: string, ifNoneMatch: string | undefined, body: string | Uint8Array, etag: string, headers: Record<string, string>): Reply {
  headers.etag = etag;
  if (matchesEtag(ifNoneMatch, etag)) return { status: 304, headers, body: null };
  if (method === 'HEAD') headers['content-length'] = String(Buffer.byteLength(body));
  return { status: 200, headers, body: method === 'HEAD' ? null : body };
}

/**
 * Every answer of the layer and the site: srvx's `FastResponse` with plain-object headers, which the Node adapter
 * writes without building a web `Response` or `Headers`; with its reason phrase, which srvx would otherwise leave empty.
 */
export function fastResponse(body: BodyInit | Uint8Array | null, status: number, headers: Record<string, string>): Response {
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

/** Whether an `If-None-Match` names this ETag (weakly compared, as RFC 9110 asks of it) or is `*`. */
export function matchesEtag(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate === etag || `W/${candidate}` === etag;
  });
}
