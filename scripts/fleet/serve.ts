/**
 * How one fleet service answers a request, per behaviour. Paths under the service's base
 * (`/svc/<n>`): `/quote` is the main endpoint the directories list, `/e/<k>` its other listed endpoints (they answer
 * as the main one); `/hop/<k>` are redirect hops. Any other path answers 404, except on a `wildcard-402` host.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { OVERSIZED_HEADER_BYTES, REDIRECT_HOPS, RETRY_AFTER_S, type Behaviour } from './behaviours.ts';
import {
  toHtmlPaywall,
  toLenientPaymentRequiredHeader,
  toMppProblemBody,
  toNoAcceptsBody,
  toPaymentRequiredHeader,
  toStripeChallenge,
  toTempoChallenge,
  toV1Body,
  type Offer,
} from './challenges.ts';

/** The path of every service's main endpoint (but the templates'). */
export const MAIN_PATH = '/quote';
/** The main endpoint the `template-*` behaviours list, and the path its listing's example fills it to. */
export const TEMPLATE_PATH = '/items/{id}';
export const TEMPLATE_EXAMPLE_PATH = '/items/7';
/** What `extreme-price` charges: $500 in USDC atomic units. */
export const EXTREME_AMOUNT = '500000000';
/** How many times the listed price `price-mismatch`'s challenge asks. */
export const MISMATCH_FACTOR = 1000;
/** The paths of `retired-endpoint`'s endpoints beside its main one; the last answers 404. */
export const RETIRED_ENDPOINT_PATHS = ['/e/1', '/e/2', '/e/3', '/e/4'];

/** One service of the fleet. */
export interface FleetService {
  n: number;
  behaviour: Behaviour;
  /** `http://127.0.0.1:<port>`: each service listens on its own port, so it is its own host in the index. */
  origin: string;
  /** `/svc/<n>`, the service's base path. */
  basePath: string;
  /** The paths under `basePath` the directories list, the main one first. */
  listedPaths: string[];
  offer: Offer;
  /** Added before every answer (the realistic spread), 0 for none. */
  latencyMs: number;
}

/** State and settings shared by all services of one fleet. */
export interface ServeContext {
  /** MPP realm: the fleet's host. */
  realm: string;
  /** How long `slow` waits before answering: well past the probe's time limit. */
  slowMs: number;
  /** Requests seen per service, for `rate-limited`. */
  hits: Map<number, number>;
}

const JSON_TYPE = { 'content-type': 'application/json' };
/** Where `redirect-forbidden` sends the prober: the cloud metadata address or a private one. */
const FORBIDDEN_TARGETS = ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/admin'];
const REDIRECT_STATUSES = [302, 301, 307, 308];

function send(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body = ''): void {
  res.writeHead(status, headers);
  res.end(body);
}

function sendX402(res: ServerResponse, offer: Offer, padBytes = 0, header = toPaymentRequiredHeader(offer, padBytes)): void {
  send(res, 402, { ...JSON_TYPE, 'payment-required': header, 'cache-control': 'no-store' }, '{}');
}

/** Reads a small JSON request body; undefined when absent, too large or not JSON. */
function readJsonBody(req: IncomingMessage, onBody: (json: unknown) => void): void {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    raw += chunk;
    if (raw.length > 16_384) req.destroy();
  });
  req.on('end', () => {
    try {
      onBody(JSON.parse(raw));
    } catch {
      onBody(undefined);
    }
  });
}

/** Status line now, then one header line every 100 ms, never finishing the head. */
function trickleHeaders(res: ServerResponse): void {
  const socket = res.socket;
  if (socket === null) return;
  socket.write('HTTP/1.1 402 Payment Required\r\n');
  let line = 0;
  const timer = setInterval(() => socket.write(`x-slow-${line++}: .\r\n`), 100);
  socket.on('close', () => clearInterval(timer));
}

/** A 402 whose JSON body never ends. */
function streamEndlessBody(res: ServerResponse): void {
  const chunk = Buffer.alloc(16_384, ' ');
  res.on('error', () => {}); // the prober hangs up mid-body by design
  res.writeHead(402, JSON_TYPE);
  res.write('{"x402Version":1,"accepts":[');
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', pump);
  pump();
}

function answerLater(res: ServerResponse, delayMs: number, answer: () => void): void {
  const timer = setTimeout(answer, delayMs);
  res.on('close', () => clearTimeout(timer));
}

function answer(service: FleetService, hop: number, req: IncomingMessage, res: ServerResponse, ctx: ServeContext): void {
  const { behaviour, offer, basePath, n } = service;
  switch (behaviour) {
    case 'x402-v2-header':
      return sendX402(res, offer);
    case 'x402-v1-body':
      return send(res, 402, JSON_TYPE, toV1Body(offer, 'GET'));
    case 'mpp': {
      const challenges = [toTempoChallenge(offer, ctx.realm), toStripeChallenge(offer, ctx.realm)];
      const headers = { 'content-type': 'application/problem+json', 'www-authenticate': challenges, 'cache-control': 'no-store' };
      return send(res, 402, headers, toMppProblemBody());
    }
    case 'dual-rail': {
      const headers = { ...JSON_TYPE, 'payment-required': toPaymentRequiredHeader(offer), 'www-authenticate': toTempoChallenge(offer, ctx.realm) };
      return send(res, 402, headers, '{}');
    }
    case 'post-only':
      return req.method === 'POST' ? sendX402(res, offer) : send(res, 405, { ...JSON_TYPE, allow: 'POST' }, '{"error":"method not allowed"}');
    case 'validation-first':
      if (req.method !== 'POST') return send(res, 405, { ...JSON_TYPE, allow: 'POST' }, '{"error":"method not allowed"}');
      return readJsonBody(req, (json) => {
        const prompt = typeof json === 'object' && json !== null && 'prompt' in json ? json.prompt : undefined;
        if (typeof prompt === 'string' && prompt !== '') sendX402(res, offer);
        else send(res, 400, JSON_TYPE, '{"error":"prompt is required"}');
      });
    case 'html-paywall':
      return send(res, 402, { 'content-type': 'text/html; charset=utf-8' }, toHtmlPaywall(offer));
    case 'no-accepts':
      return send(res, 402, JSON_TYPE, toNoAcceptsBody());
    case 'free-200':
      return send(res, 200, JSON_TYPE, JSON.stringify({ quote: 42, description: offer.description }));
    case 'not-found':
      return send(res, 404, JSON_TYPE, '{"error":"not found"}');
    case 'server-error':
      return send(res, 500, JSON_TYPE, '{"error":"facilitator unavailable"}');
    case 'slow':
      return answerLater(res, ctx.slowMs, () => sendX402(res, offer));
    case 'slowloris':
      return trickleHeaders(res);
    case 'endless-body':
      return streamEndlessBody(res);
    case 'oversized-header':
      return sendX402(res, offer, OVERSIZED_HEADER_BYTES);
    case 'redirect-chain':
    case 'too-many-redirects': {
      if (hop >= REDIRECT_HOPS[behaviour]) return sendX402(res, offer);
      const status = REDIRECT_STATUSES[hop % REDIRECT_STATUSES.length] ?? 302;
      return send(res, status, { location: `${basePath}/hop/${hop + 1}` });
    }
    case 'redirect-forbidden':
      return send(res, 302, { location: FORBIDDEN_TARGETS[n % FORBIDDEN_TARGETS.length] });
    case 'rate-limited': {
      const hits = (ctx.hits.get(n) ?? 0) + 1;
      ctx.hits.set(n, hits);
      if (hits % 2 === 1) return send(res, 429, { ...JSON_TYPE, 'retry-after': String(RETRY_AFTER_S) }, '{"error":"slow down"}');
      return sendX402(res, offer);
    }
    case 'wildcard-402':
    case 'template-only':
    case 'template-example':
    case 'extreme-price':
    case 'retired-endpoint':
      return sendX402(res, offer);
    case 'price-mismatch':
      return sendX402(res, { ...offer, amount: String(BigInt(offer.amount) * BigInt(MISMATCH_FACTOR)) });
    case 'testnet-only':
      return sendX402(res, offer, 0, toPaymentRequiredHeader(offer, 0, 'base-sepolia'));
    case 'nonstandard':
      return sendX402(res, offer, 0, toLenientPaymentRequiredHeader(offer));
    case 'unreachable':
      return void req.socket.destroy();
  }
}

/** Whether a path below the base answers as the service (else 404): what it lists, or anything on a wildcard host. */
function isServed(service: FleetService, tail: string): boolean {
  if (service.behaviour === 'wildcard-402') return true;
  if (service.behaviour === 'template-example') return tail === TEMPLATE_EXAMPLE_PATH;
  if (service.behaviour === 'retired-endpoint' && tail === RETIRED_ENDPOINT_PATHS.at(-1)) return false;
  return service.behaviour !== 'template-only' && service.listedPaths.includes(tail);
}

/**
 * Answers one request to a service, `tail` being the path below its base path.
 * @example serveService(service, '/quote', req, res, ctx)
 */
export function serveService(service: FleetService, tail: string, req: IncomingMessage, res: ServerResponse, ctx: ServeContext): void {
  const hop = /^\/hop\/(\d{1,2})$/.exec(tail);
  if (!isServed(service, tail) && hop === null) return send(res, 404, JSON_TYPE, '{"error":"not found"}');
  const respond = (): void => answer(service, Number(hop?.[1] ?? 0), req, res, ctx);
  if (service.latencyMs > 0) answerLater(res, service.latencyMs, respond);
  else respond();
}
