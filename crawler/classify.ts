/**
 * Classifying one probe: what the network shell observed (`ProbeFacts`) -> whether the endpoint
 * answered a valid payment challenge, which rails, the terms it states, and otherwise a short reason
 * a person understands. Pure; the signals are exactly protocols.md section 7's.
 */
import type { Price, Rail } from '../data/types.ts';
import type { Offer } from '../domain/schemas.ts';
import {
  readMppChallenges,
  readX402Body,
  readX402Header,
  type ChallengeProblem,
  type ChallengeRead,
  type ChallengeSignal,
  type PaymentOffer,
  type StatedAccepts,
} from './challenge.ts';
import { UNKNOWN_PRICE, toSortedUnique } from './normalize.ts';

/** Why a request got no HTTP answer. */
export type ProbeFailure =
  | { kind: 'timeout' | 'connect-timeout'; limitMs: number }
  | { kind: 'headers-too-large'; limitBytes: number }
  /** The SSRF guard refused the target; `message` is the guard's own short text. */
  | { kind: 'blocked'; message: string }
  | { kind: 'dns' | 'refused' | 'reset' | 'tls' | 'bad-response' | 'too-many-redirects' }
  | { kind: 'network'; code: string };

/** Response headers as undici gives them: lower-case names, repeated ones as arrays. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** What the network shell observed for the request whose result is recorded. */
export type ProbeFacts =
  | { outcome: 'failed'; failure: ProbeFailure }
  | {
      outcome: 'answered';
      status: number;
      headers: ResponseHeaders;
      /** The body as text, at most the read limit. */
      body: string;
      /** The read limit when the body went past it and was cut there, else null. */
      truncatedAtBytes: number | null;
    };

/** The payment terms a live challenge states; authoritative over directory data. */
export interface ProbeTerms {
  rails: Rail[];
  chains: string[];
  assets: string[];
  /** The cheapest known unit price among the offers, else unknown. */
  price: Price;
  /** Every offer of every valid challenge on the 402 (an x402 and an MPP challenge: both). */
  offers: Offer[];
  /** The first valid x402 challenge's accepts as stated, when there is one. */
  x402?: StatedAccepts;
}

/**
 * The classification of one probe; `reason` is null exactly when `ok`. `lenient`: every valid challenge it carries
 * decoded only leniently (each has a note), so a strict client may refuse it.
 */
export type ProbeResult =
  | { ok: true; reason: null; detected_rails: Rail[]; terms: ProbeTerms; signals: ChallengeSignal[]; notes: string[]; lenient: boolean }
  | { ok: false; reason: string; detected_rails: Rail[]; terms: null; signals: ChallengeSignal[]; notes: string[]; lenient: false };

const PROBLEM_REASONS: Readonly<Record<Exclude<ChallengeProblem, 'absent'>, string>> = {
  'unreadable-header': 'unreadable PAYMENT-REQUIRED header',
  'not-x402-v2': 'PAYMENT-REQUIRED header is not x402 v2',
  'no-accepts': '402 without accepts',
  'sign-in-only': '402 for sign-in only, no accepts',
  'incomplete-accepts': '402 with incomplete accepts',
  'malformed-payment': 'malformed Payment challenge',
};

const FAILURE_REASONS = {
  dns: 'DNS lookup failed',
  refused: 'connection refused',
  reset: 'connection reset',
  tls: 'TLS handshake failed',
  'bad-response': 'invalid HTTP response',
  'too-many-redirects': 'too many redirects',
} as const;

/** Network errors a person can read, by their code; any other is `request failed (CODE)`. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EADDRNOTAVAIL: 'address not available',
};

/**
 * The short text recorded for a request that got no answer.
 * @example toFailureReason({ kind: 'timeout', limitMs: 10_000 }) // 'timed out after 10 s'
 */
export function toFailureReason(failure: ProbeFailure): string {
  switch (failure.kind) {
    case 'timeout':
      return `timed out after ${failure.limitMs / 1000} s`;
    case 'connect-timeout':
      return `connect timed out after ${failure.limitMs / 1000} s`;
    case 'headers-too-large':
      return `headers over ${failure.limitBytes / 1024} KiB`;
    case 'blocked':
      return failure.message;
    case 'network':
      return NETWORK_REASONS[failure.code] ?? `request failed (${failure.code})`;
    default:
      return FAILURE_REASONS[failure.kind];
  }
}

function notOk(reason: string): ProbeResult {
  return { ok: false, reason, detected_rails: [], terms: null, signals: [], notes: [], lenient: false };
}

/** A header's value; repeated headers comma-joined, as fetch joins them. */
export function readHeader(headers: ResponseHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The body as JSON when it is a complete JSON object text, else undefined. */
function parseJsonBody(body: string, truncated: boolean): unknown {
  const trimmed = body.trim();
  if (truncated || !trimmed.startsWith('{')) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

function isHtml(headers: ResponseHeaders, body: string): boolean {
  return /text\/html/i.test(readHeader(headers, 'content-type') ?? '') || /^\s*</.test(body);
}

function cheapest(prices: Price[]): Price {
  const known = prices.filter((price) => price.usd !== null);
  return known.reduce((best, price) => ((price.usd ?? 0) < (best.usd ?? 0) ? price : best), known[0] ?? UNKNOWN_PRICE);
}

function toTerms(offers: PaymentOffer[]): ProbeTerms {
  return {
    rails: toSortedUnique(offers.map((offer) => offer.rail)),
    chains: toSortedUnique(offers.flatMap((offer) => (offer.chain === null ? [] : [offer.chain]))),
    assets: toSortedUnique(offers.flatMap((offer) => (offer.asset === null ? [] : [offer.asset]))),
    price: cheapest(offers.map((offer) => offer.price)),
    offers: offers.map((offer) => offer.offer),
  };
}

/**
 * Classifies one probe. Valid (ok) only for a 402 carrying at least one valid challenge: x402 v2
 * `PAYMENT-REQUIRED` header, x402 v1 body, v2 body copy, MPP `WWW-Authenticate: Payment`; a 402 may
 * carry several rails and all are recorded. Everything else gets a reason: a failure's, the first
 * present-but-invalid signal's (header before body), an HTML paywall, a cut-off body, or the status.
 * @example classifyProbe({ outcome: 'answered', status: 200, headers: {}, body: '{}', truncatedAtBytes: null }).reason // 'answered 200 without a challenge'
 */
export function classifyProbe(facts: ProbeFacts): ProbeResult {
  if (facts.outcome === 'failed') return notOk(toFailureReason(facts.failure));
  const { status, headers, body, truncatedAtBytes } = facts;
  if (status !== 402) return notOk(status >= 200 && status < 300 ? `answered ${status} without a challenge` : `answered ${status}`);

  const paymentRequired = readHeader(headers, 'payment-required');
  const wwwAuthenticate = readHeader(headers, 'www-authenticate');
  const reads: ChallengeRead[] = [
    ...(paymentRequired === null ? [] : [readX402Header(paymentRequired)]),
    ...(wwwAuthenticate === null ? [] : [readMppChallenges(wwwAuthenticate)]),
    readX402Body(parseJsonBody(body, truncatedAtBytes !== null)),
  ];
  const valid = reads.flatMap((read) => (read.valid ? [read] : []));
  if (valid.length > 0) {
    const stated = valid.find((read) => read.x402 !== undefined)?.x402;
    const terms = { ...toTerms(valid.flatMap((read) => read.offers)), ...(stated ? { x402: stated } : {}) };
    const signals = valid.map((read) => read.signal);
    const lenient = valid.every((read) => read.notes.length > 0);
    return { ok: true, reason: null, detected_rails: terms.rails, terms, signals, notes: valid.flatMap((read) => read.notes), lenient };
  }

  const problem = reads.flatMap((read) => (read.valid || read.problem === 'absent' ? [] : [read.problem]))[0];
  if (problem !== undefined) return notOk(PROBLEM_REASONS[problem]);
  if (isHtml(headers, body)) return notOk('HTML paywall, no challenge header');
  if (truncatedAtBytes !== null) return notOk(`body over ${truncatedAtBytes / 1024} KiB`);
  return notOk('402 without a valid challenge');
}
