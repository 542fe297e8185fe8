/**
 * The prober: one request (plus at most one retry, one GET -> POST fallback and 3 redirects) to an
 * endpoint, reduced to facts and handed to `classifyProbe`. A thin network shell with named limits;
 * it never throws. SSRF: every hop's URL goes through `assertPublicUrl` (IP-literal hosts skip DNS)
 * and every connection through the guarded DNS lookup, except the index's own demo services.
 */
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, Client, buildConnector, type Dispatcher } from 'undici';
import type { ProbeInput } from '../data/types.ts';
import type { ChallengeSignal } from './challenge.ts';
import { classifyProbe, type ProbeFacts, type ProbeFailure, type ProbeTerms } from './classify.ts';
import { TargetError, assertPublicUrl, createGuardedLookup, type AllowList } from '../net/guard.ts';

/** Default total time for one probe, redirects, retry and fallback included. */
export const PROBE_TIMEOUT_MS = 10_000;
/** Time to establish one TCP (and TLS) connection. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Bytes of a response body read at most; the rest is never read. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Response header size accepted (Node's default of 16 KiB is too small for some challenges). */
export const MAX_HEADER_BYTES = 64 * 1024;
/** Redirects followed at most. */
export const MAX_REDIRECTS = 3;
/** The longest `Retry-After` honoured; a longer one is recorded, not waited for. */
export const MAX_RETRY_AFTER_MS = 3_000;
/** Wait before the retry when a 429/503 gives no `Retry-After`, or after a reset connection. */
const DEFAULT_RETRY_DELAY_MS = 500;
/** A first try and one retry. */
const MAX_ATTEMPTS = 2;
/** A non-browser User-Agent: x402 servers answer browsers with an HTML paywall. */
export const PROBE_USER_AGENT = 'payable-service-index-probe/1.0';

const FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405, 422]);
const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/**
 * Every redirect is followed with the same method and body: fetch turns POST into GET on 301/302/303, and a paid
 * POST endpoint behind one would then be probed with a GET it answers 405 (protocols.md section 7).
 */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The connections of one crawl, with the SSRF policy they enforce. */
export interface ProbeAgent {
  /** A pool for documents the crawl reads (an origin's `/.well-known/x402`). */
  dispatcher: Agent;
  /** A new connection to the origin of `url` for one request of a probe: the caller destroys it once the answer is read. */
  connect(url: URL): Client;
  allow: AllowList;
  /** Whether `url` (query aside) is one of the index's own demo services: reachable although their origin may be loopback. */
  isOwnService(url: URL): boolean;
  connectTimeoutMs: number;
  maxHeaderBytes: number;
}

export interface ProbeAgentOptions {
  /** `parseAllowList(process.env.ALLOW_PRIVATE_TARGETS)`. */
  allow: AllowList;
  /**
   * The index's own demo services (`STAGING_URL` + each demo service's path): the only URLs of its own origin a
   * probe may reach when that origin is loopback, so a listed service redirecting to the index's own API is refused.
   */
  ownServiceUrls?: readonly string[];
  maxHeaderSize?: number;
  connectTimeoutMs?: number;
  /** The resolver under the guard; default `dns.lookup`. */
  lookup?: LookupFunction;
}

/** A URL without query or fragment, as own services are compared. */
const toServiceKey = (url: URL): string => `${url.origin}${url.pathname}`;

/**
 * Creates the undici Agent of one crawl: raised header limit, connect timeout, and a connector whose
 * DNS lookup refuses forbidden addresses (`createGuardedLookup`) for every URL but the own demo services.
 * Close it with `agent.dispatcher.close()`.
 * @example const agent = createProbeAgent({ allow: parseAllowList(process.env.ALLOW_PRIVATE_TARGETS), ownServiceUrls: ['http://127.0.0.1:4321/api/demo/market'] })
 */
export function createProbeAgent(options: ProbeAgentOptions): ProbeAgent {
  const ownServices = new Set((options.ownServiceUrls ?? []).map((url) => toServiceKey(new URL(url))));
  const isOwnService = (url: URL) => ownServices.has(toServiceKey(url));
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const maxHeaderBytes = options.maxHeaderSize ?? MAX_HEADER_BYTES;
  const guarded = buildConnector({ timeout: connectTimeoutMs, lookup: createGuardedLookup(options.allow, options.lookup) });
  const direct = buildConnector({ timeout: connectTimeoutMs, lookup: options.lookup });
  const dispatcher = new Agent({ maxHeaderSize: maxHeaderBytes, connect: guarded });
  const connect = (url: URL) => new Client(url.origin, { maxHeaderSize: maxHeaderBytes, connect: isOwnService(url) ? direct : guarded });
  return { dispatcher, connect, allow: options.allow, isOwnService, connectTimeoutMs, maxHeaderBytes };
}

/** An endpoint to probe: its advertised method and, for POST-like methods, an example body. */
export interface ProbeTarget {
  url: string;
  method?: string | null;
  body?: unknown;
}

export interface ProbeOptions {
  agent: ProbeAgent;
  /** Total time limit; default PROBE_TIMEOUT_MS. */
  timeoutMs?: number;
  now?: () => Date;
  /** Whether a GET answered 404/405/400/422 is tried again as POST; default true (false: the method as given only). */
  fallback?: boolean;
  /** Whether the outcome keeps the chosen request's answer (`answer`): a seller's check reads its headers and body. */
  keepAnswer?: boolean;
}

/** The probe record (`ProbeInput` without the service id) plus what the challenge stated. */
export interface ProbeOutcome extends Omit<ProbeInput, 'service_id'> {
  terms: ProbeTerms | null;
  /** The last URL requested (after redirects), without query or fragment. */
  final_url: string;
  signals: ChallengeSignal[];
  notes: string[];
  /** Every valid challenge decoded only leniently (`classifyProbe`). */
  lenient: boolean;
  /** What the chosen request observed, when `keepAnswer` asked for it. */
  answer?: ProbeFacts;
}

/** One request as sent, with redirects followed. */
interface Attempt {
  method: string;
  facts: ProbeFacts;
  finalUrl: string;
  latencyMs: number;
  retryAfterMs: number | null;
}

interface ProbeContext {
  agent: ProbeAgent;
  signal: AbortSignal;
  timeoutMs: number;
  deadline: number;
  now: () => Date;
}

/**
 * Whether a request is worth its one retry: a 429/503 whose `Retry-After` is absent or at most
 * MAX_RETRY_AFTER_MS, or a reset connection. Timeouts, refusals, DNS and blocked targets never are.
 * @example shouldRetry({ status: 429, retryAfterMs: 1000 }, 1) // true
 */
export function shouldRetry(error: ProbeFailure | { status: number; retryAfterMs: number | null }, attempt: number): boolean {
  if (attempt >= MAX_ATTEMPTS) return false;
  if ('kind' in error) return error.kind === 'reset';
  return RETRY_STATUSES.has(error.status) && (error.retryAfterMs ?? 0) <= MAX_RETRY_AFTER_MS;
}

/** `Retry-After` in ms (delta seconds or an HTTP date), or null when absent or unreadable. */
function readRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}

/** The first `code` on an error or its causes. */
function readErrorCode(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ('code' in cause && typeof cause.code === 'string') return cause.code;
  }
  return undefined;
}

function findTargetError(error: unknown): TargetError | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof TargetError) return cause;
  }
  return undefined;
}

/** Network errors in the classifier's words. */
function toProbeFailure(error: unknown, ctx: ProbeContext): ProbeFailure {
  if (ctx.signal.aborted) return { kind: 'timeout', limitMs: ctx.timeoutMs };
  const target = findTargetError(error);
  if (target) return target.reason === 'dns_failed' ? { kind: 'dns' } : { kind: 'blocked', message: target.message };
  const code = readErrorCode(error) ?? 'unknown';
  if (/^(ENOTFOUND|EAI_)/.test(code)) return { kind: 'dns' };
  if (code === 'ECONNREFUSED') return { kind: 'refused' };
  if (/^(ECONNRESET|EPIPE|UND_ERR_SOCKET)$/.test(code)) return { kind: 'reset' };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'connect-timeout', limitMs: ctx.agent.connectTimeoutMs };
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return { kind: 'headers-too-large', limitBytes: ctx.agent.maxHeaderBytes };
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code)) return { kind: 'tls' };
  if (/^(HPE_|UND_ERR_INFO|UND_ERR_RES_CONTENT_LENGTH)/.test(code)) return { kind: 'bad-response' };
  return { kind: 'network', code };
}

/** Refuses a hop the index must not reach; the own demo services always pass, the rest of the own origin does not. */
async function assertReachable(url: string, agent: ProbeAgent): Promise<void> {
  if (URL.canParse(url) && agent.isOwnService(new URL(url))) return;
  await assertPublicUrl(url, { allow: agent.allow, resolve: false }); // names are checked at connect time
}

/** Stops reading a body and drops its connection (undici reports that as an error nobody needs). */
function discardBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

/** At most MAX_BODY_BYTES of the body; stops reading (and drops the connection) beyond. */
async function readBoundedBody(body: Dispatcher.ResponseData['body']): Promise<{ text: string; truncatedAtBytes: number | null }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > MAX_BODY_BYTES) {
      chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
      discardBody(body);
      return { text: Buffer.concat(chunks).toString('utf8'), truncatedAtBytes: MAX_BODY_BYTES };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncatedAtBytes: null };
}

/**
 * The response, or the abort as soon as the time limit passes: undici only gives up on a request once its connector
 * returns, and a DNS lookup that hangs (a resolver that never answers) held a probe for seconds past its limit. The
 * request's connection is destroyed when the probe gives up (`sendHop`), which fails the request; nothing waits for it.
 */
async function untilAborted(responding: Promise<Dispatcher.ResponseData>, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  let stop = () => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([responding, aborted]);
  } catch (error) {
    if (signal.aborted) responding.catch(() => {});
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/**
 * What a probe's connection is destroyed with once its answer is read (or the probe gave up): undici hands the socket
 * it destroys an error and Node formats that error's stack, a cost paid on every probe unless the error is made once,
 * here.
 */
const HUNG_UP = new Error('the probe hung up');

/** One hop's answer: a redirect's next URL, or the answer as the classifier reads it. */
type HopAnswer = { redirect: string } | { facts: ProbeFacts & { outcome: 'answered' } };

/**
 * Sends one request on a connection of its own and reads its answer; the connection is destroyed after. A probe
 * reaches each host once a pass, so a pooled connection would only wait for a next request that never comes.
 */
async function sendHop(url: URL, method: string, payload: string | undefined, ctx: ProbeContext): Promise<HopAnswer> {
  const client = ctx.agent.connect(url);
  try {
    const headers = { accept: 'application/json', 'user-agent': PROBE_USER_AGENT, 'accept-encoding': 'identity' };
    const response = await untilAborted(client.request({
      path: `${url.pathname}${url.search}`,
      method: method as Dispatcher.HttpMethod,
      headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: payload,
      signal: ctx.signal,
    }), ctx.signal);
    const { statusCode: status, headers: responseHeaders } = response;
    const location = responseHeaders.location;
    if (REDIRECTS.has(status) && typeof location === 'string') {
      discardBody(response.body);
      return { redirect: new URL(location, url).href };
    }
    const { text, truncatedAtBytes } = await readBoundedBody(response.body);
    return { facts: { outcome: 'answered', status, headers: responseHeaders, body: text, truncatedAtBytes } };
  } finally {
    client.destroy(HUNG_UP).catch(() => {});
  }
}

/** Sends one request and follows up to MAX_REDIRECTS redirects by hand, re-checking every hop. */
async function sendFollowing(url: string, method: string, body: unknown, ctx: ProbeContext): Promise<Attempt> {
  const started = performance.now();
  let hopUrl = url;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const finish = (facts: ProbeFacts, retryAfterMs: number | null = null): Attempt => {
    const latencyMs = Math.round(performance.now() - started);
    return { method, facts, finalUrl: hopUrl, latencyMs, retryAfterMs };
  };
  try {
    for (let hops = 0; ; hops++) {
      await assertReachable(hopUrl, ctx.agent);
      const answer = await sendHop(new URL(hopUrl), method, payload, ctx);
      if ('facts' in answer) return finish(answer.facts, readRetryAfter(answer.facts.headers['retry-after'], ctx.now()));
      if (hops === MAX_REDIRECTS) return finish({ outcome: 'failed', failure: { kind: 'too-many-redirects' } });
      hopUrl = answer.redirect;
    }
  } catch (error) {
    return finish({ outcome: 'failed', failure: toProbeFailure(error, ctx) });
  }
}

/** One request, retried once when `shouldRetry` says so and the wait fits in the time left. */
async function sendWithRetry(url: string, method: string, body: unknown, ctx: ProbeContext): Promise<Attempt> {
  for (let attempt = 1; ; attempt++) {
    const sent = await sendFollowing(url, method, body, ctx);
    const { facts } = sent;
    const error = facts.outcome === 'failed' ? facts.failure : { status: facts.status, retryAfterMs: sent.retryAfterMs };
    const delayMs = sent.retryAfterMs ?? DEFAULT_RETRY_DELAY_MS;
    if (!shouldRetry(error, attempt) || performance.now() + delayMs >= ctx.deadline) return sent;
    await sleep(delayMs);
  }
}

/** The method to send: the advertised one, GET when none; never HEAD (x402 route matching skips it). */
function toRequestMethod(method: string | null | undefined): string {
  const upper = method?.trim().toUpperCase() ?? '';
  return upper === '' || upper === 'HEAD' ? 'GET' : upper;
}

/** The body to send: JSON for methods that carry one (`{}` when no example is known). */
function toRequestBody(method: string, body: unknown): unknown {
  return ['POST', 'PUT', 'PATCH'].includes(method) ? (body ?? {}) : undefined;
}

/** A URL as recorded: no credentials, query or fragment (they may hold secrets). */
function toRecordedUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}

/**
 * Probes an endpoint for a payment challenge. Sends the advertised method (HEAD -> GET); when a GET
 * answers 404/405/400/422, tries POST `{}` and keeps that answer if it is a valid challenge or any 402. Never throws.
 * @example const outcome = await probeEndpoint({ url: 'https://api.example.com/quote', method: 'GET' }, { agent })
 */
export async function probeEndpoint(target: ProbeTarget, options: ProbeOptions): Promise<ProbeOutcome> {
  const now = options.now ?? (() => new Date());
  const probedAt = now().toISOString();
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const ctx: ProbeContext = { agent: options.agent, signal: controller.signal, timeoutMs, deadline: performance.now() + timeoutMs, now };
  try {
    const method = toRequestMethod(target.method);
    let chosen = await sendWithRetry(target.url, method, toRequestBody(method, target.body), ctx);
    let result = classifyProbe(chosen.facts);
    const { facts } = chosen;
    const mayFallBack = options.fallback !== false && method === 'GET';
    if (!result.ok && mayFallBack && facts.outcome === 'answered' && FALLBACK_STATUSES.has(facts.status)) {
      const fallback = await sendWithRetry(target.url, 'POST', target.body ?? {}, ctx);
      const fallbackResult = classifyProbe(fallback.facts);
      // A 402 to the POST says more than the GET's 404, even when its challenge cannot be used.
      const paywalled = fallback.facts.outcome === 'answered' && fallback.facts.status === 402;
      if (fallbackResult.ok || paywalled) [chosen, result] = [fallback, fallbackResult];
    }
    return {
      probed_at: probedAt,
      ok: result.ok,
      status_code: chosen.facts.outcome === 'answered' ? chosen.facts.status : null,
      method: chosen.method,
      latency_ms: chosen.latencyMs,
      reason: result.reason,
      detected_rails: result.detected_rails,
      terms: result.terms,
      final_url: toRecordedUrl(chosen.finalUrl),
      signals: result.signals,
      notes: result.notes,
      lenient: result.lenient,
      ...(options.keepAnswer ? { answer: chosen.facts } : {}),
    };
  } finally {
    clearTimeout(timer);
  }
}
