/**
 * The flags of a service, from what the crawler observed (DESIGN.md "Flags (trust signals)"). Pure. A flag that
 * needs a valid challenge to be seen (`price_mismatch`, `testnet_only`, `challenge_nonstandard`) keeps its last
 * observed value while the endpoint answers none, so a host that goes dark keeps what was last seen of it. Flags
 * never change `live`.
 */
import { isTestnet } from '../domain/chains.ts';
import type { Flag } from '../domain/schemas.ts';
import type { ProbeTerms } from './classify.ts';

/** Over this many US dollars a call: `extreme_price`. */
export const EXTREME_PRICE_USD = 100;
/** The challenge asks over this many times more, or less, than the directory lists: `price_mismatch`. */
export const PRICE_MISMATCH_RATIO = 10;
/** No HTTP answer for this long: `unreachable_30d`. */
export const UNREACHABLE_MS = 30 * 86_400_000;

/** What one probe of the main endpoint observed, with what is held from before. */
export interface FlagObservation {
  /** Whether the main endpoint is listed as a URL template (crawler/template.ts). */
  template: boolean;
  /** The price the directories list for the main endpoint, in USD, or null. */
  listedPriceUsd: number | null;
  /** The terms of the valid challenge this probe read, or null when it read none (or was not made). */
  terms: ProbeTerms | null;
  /** Every valid challenge decoded only leniently. */
  lenient: boolean;
  /** The start of the run of probes without an HTTP answer, this one included; null when it answered. */
  unansweredSince: string | null;
  /** The host's last random-path check answered the same 402; null when never checked. */
  wildcard402: boolean | null;
  /** The flags held before this probe. */
  held: readonly Flag[];
  now: Date;
}

/** Whether two prices differ by more than PRICE_MISMATCH_RATIO either way; false when either is unknown or zero. */
export function isPriceMismatch(listedUsd: number | null, askedUsd: number | null): boolean {
  if (listedUsd === null || askedUsd === null || listedUsd <= 0 || askedUsd <= 0) return false;
  return askedUsd > listedUsd * PRICE_MISMATCH_RATIO || askedUsd * PRICE_MISMATCH_RATIO < listedUsd;
}

/** Whether every chain given is a testnet; false for none. */
export function isTestnetOnly(chains: readonly string[]): boolean {
  return chains.length > 0 && chains.every(isTestnet);
}

/**
 * The flags a service has after one probe of its main endpoint.
 * @example toFlags({ template: false, listedPriceUsd: 0.01, terms, lenient: false, unansweredSince: null, wildcard402: false, held: [], now }) // ['testnet_only'] for a Base Sepolia challenge
 */
export function toFlags(observed: FlagObservation): Flag[] {
  const { terms } = observed;
  const held = (flag: Flag) => observed.held.includes(flag);
  const askedUsd = terms?.price.usd ?? null;
  const priceUsd = askedUsd ?? observed.listedPriceUsd;
  const unanswered = observed.unansweredSince === null ? 0 : observed.now.getTime() - Date.parse(observed.unansweredSince);
  const facts: Record<Flag, boolean> = {
    wildcard_402: observed.wildcard402 === true,
    template_url: observed.template,
    extreme_price: priceUsd !== null && priceUsd > EXTREME_PRICE_USD,
    price_mismatch: terms ? isPriceMismatch(observed.listedPriceUsd, askedUsd) : held('price_mismatch'),
    testnet_only: terms ? isTestnetOnly(terms.chains) : held('testnet_only'),
    unreachable_30d: unanswered >= UNREACHABLE_MS,
    challenge_nonstandard: terms ? observed.lenient : held('challenge_nonstandard'),
  };
  return (Object.keys(facts) as Flag[]).filter((flag) => facts[flag]);
}
