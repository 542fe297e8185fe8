/**
 * The behaviours a fleet service can have, what the directories say about it, and the exact outcome
 * a probe must record for it (protocols.md section 7; reasons as `crawler/classify.ts` words them).
 */
import { toFailureReason } from '../../crawler/classify.ts';
import { NOT_PROBED_TEMPLATE } from '../../crawler/probe-pass.ts';
import type { Rail } from '../../data/types.ts';
import type { Flag } from '../../domain/schemas.ts';

export const BEHAVIOURS = [
  'x402-v2-header',
  'x402-v1-body',
  'mpp',
  'dual-rail',
  'post-only',
  'validation-first',
  'html-paywall',
  'no-accepts',
  'free-200',
  'not-found',
  'server-error',
  'slow',
  'slowloris',
  'endless-body',
  'oversized-header',
  'redirect-chain',
  'too-many-redirects',
  'redirect-forbidden',
  'rate-limited',
] as const;

/**
 * Behaviours a bare challenge hides (each sets one flag, crawler/flags.ts) and behaviours of listed endpoints; kept
 * out of BEHAVIOURS so the default mix and the probe tests that cycle through every probe behaviour stay as they are.
 * `unreachable` resets every connection (its flag needs 30 days of that); `retired-endpoint` lists four endpoints
 * beside its main one, the last answering 404.
 */
export const TRUST_BEHAVIOURS = [
  'wildcard-402',
  'template-only',
  'template-example',
  'extreme-price',
  'price-mismatch',
  'testnet-only',
  'nonstandard',
  'unreachable',
  'retired-endpoint',
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number] | (typeof TRUST_BEHAVIOURS)[number];

/** What a probe of the endpoint must record. */
export interface ExpectedOutcome {
  ok: boolean;
  reason: string | null;
  rails: Rail[];
  status: number | null;
  method: string;
  /** The flags the crawler must set (those needing no history: `unreachable_30d` needs 30 days). */
  flags: Flag[];
}

interface BehaviourSpec {
  /** Share in the default mix (relative). */
  weight: number;
  /** The method the directories advertise; null: none (the probe must find POST itself). */
  method: string | null;
  /** An example request body the directory gives (Bazaar `info.input.body`). */
  body?: unknown;
  /** Which directory lists the service. */
  listedIn: 'bazaar' | 'mpp' | 'both';
  /** The outcome, given the probe's time limit and the service's added latency per request. */
  expected: (probeTimeoutMs: number, latencyMs: number) => ExpectedOutcome;
}

/** Redirect hops of `redirect-chain` (followed) and `too-many-redirects` (one past the limit). */
export const REDIRECT_HOPS = { 'redirect-chain': 3, 'too-many-redirects': 4 } as const;
/** Seconds the `rate-limited` behaviour asks to wait before its one retry. */
export const RETRY_AFTER_S = 1;
/** The size of the oversized `PAYMENT-REQUIRED` header (over Node's 16 KiB default). */
export const OVERSIZED_HEADER_BYTES = 40_000;

const valid = (rails: Rail[], method = 'GET', flags: Flag[] = []) => (): ExpectedOutcome => ({ ok: true, reason: null, rails, status: 402, method, flags });
const invalid = (reason: string, status: number | null, method = 'GET', flags: Flag[] = []) => (): ExpectedOutcome => ({
  ok: false,
  reason,
  rails: [],
  status,
  method,
  flags,
});
const timedOut = (probeTimeoutMs: number): ExpectedOutcome =>
  invalid(toFailureReason({ kind: 'timeout', limitMs: probeTimeoutMs }), null)();

const SPECS: Readonly<Record<Behaviour, BehaviourSpec>> = {
  'x402-v2-header': { weight: 30, method: 'GET', listedIn: 'bazaar', expected: valid(['x402']) },
  'x402-v1-body': { weight: 15, method: 'GET', listedIn: 'bazaar', expected: valid(['x402']) },
  mpp: { weight: 12, method: 'GET', listedIn: 'mpp', expected: valid(['mpp']) },
  'dual-rail': { weight: 4, method: 'GET', listedIn: 'both', expected: valid(['mpp', 'x402']) },
  'post-only': { weight: 6, method: null, listedIn: 'bazaar', expected: valid(['x402'], 'POST') },
  'validation-first': {
    weight: 3,
    method: 'POST',
    body: { prompt: 'hello' },
    listedIn: 'bazaar',
    expected: valid(['x402'], 'POST'),
  },
  'html-paywall': { weight: 2, method: 'GET', listedIn: 'bazaar', expected: invalid('HTML paywall, no challenge header', 402) },
  'no-accepts': { weight: 3, method: 'GET', listedIn: 'bazaar', expected: invalid('402 without accepts', 402) },
  'free-200': { weight: 4, method: 'GET', listedIn: 'mpp', expected: invalid('answered 200 without a challenge', 200) },
  'not-found': { weight: 5, method: 'GET', listedIn: 'bazaar', expected: invalid('answered 404', 404) },
  'server-error': { weight: 3, method: 'GET', listedIn: 'mpp', expected: invalid('answered 500', 500) },
  slow: { weight: 1, method: 'GET', listedIn: 'bazaar', expected: timedOut },
  slowloris: { weight: 0.5, method: 'GET', listedIn: 'bazaar', expected: timedOut },
  'endless-body': { weight: 0.5, method: 'GET', listedIn: 'bazaar', expected: invalid('body over 64 KiB', 402) },
  'oversized-header': { weight: 1, method: 'GET', listedIn: 'bazaar', expected: valid(['x402']) },
  'redirect-chain': { weight: 3, method: 'GET', listedIn: 'bazaar', expected: valid(['x402']) },
  'too-many-redirects': { weight: 1, method: 'GET', listedIn: 'bazaar', expected: invalid('too many redirects', null) },
  'redirect-forbidden': { weight: 1, method: 'GET', listedIn: 'mpp', expected: invalid('refused: private address', null) },
  'rate-limited': {
    weight: 2,
    method: 'GET',
    listedIn: 'bazaar',
    // The prober retries only when the wait ends before its deadline (near that edge, timing decides).
    expected: (probeTimeoutMs, latencyMs) =>
      latencyMs + RETRY_AFTER_S * 1000 < probeTimeoutMs ? valid(['x402'])() : invalid('answered 429', 429)(),
  },
  'wildcard-402': { weight: 0, method: 'GET', listedIn: 'bazaar', expected: valid(['x402'], 'GET', ['wildcard_402']) },
  'template-only': { weight: 0, method: 'GET', listedIn: 'bazaar', expected: invalid(NOT_PROBED_TEMPLATE, null, 'GET', ['template_url']) },
  'template-example': { weight: 0, method: 'GET', body: { id: '7' }, listedIn: 'bazaar', expected: valid(['x402'], 'GET', ['template_url']) },
  'extreme-price': { weight: 0, method: 'GET', listedIn: 'bazaar', expected: valid(['x402'], 'GET', ['extreme_price']) },
  'price-mismatch': { weight: 0, method: 'GET', listedIn: 'bazaar', expected: valid(['x402'], 'GET', ['price_mismatch']) },
  'testnet-only': { weight: 0, method: 'GET', listedIn: 'bazaar', expected: valid(['x402'], 'GET', ['testnet_only']) },
  nonstandard: { weight: 0, method: 'GET', listedIn: 'bazaar', expected: valid(['x402'], 'GET', ['challenge_nonstandard']) },
  unreachable: { weight: 0, method: 'GET', listedIn: 'bazaar', expected: invalid(toFailureReason({ kind: 'reset' }), null) },
  'retired-endpoint': { weight: 0, method: 'GET', listedIn: 'bazaar', expected: valid(['x402']) },
};

/**
 * The spec of a behaviour: its weight, advertised method and body, directory and expected outcome.
 * @example getBehaviourSpec('post-only').expected(10_000, 0) // { ok: true, method: 'POST', ... }
 */
export function getBehaviourSpec(behaviour: Behaviour): BehaviourSpec {
  return SPECS[behaviour];
}

/**
 * Whether a string names a behaviour.
 * @example isBehaviour('slowloris') // true
 */
export function isBehaviour(value: string): value is Behaviour {
  return (BEHAVIOURS as readonly string[]).includes(value) || (TRUST_BEHAVIOURS as readonly string[]).includes(value);
}
