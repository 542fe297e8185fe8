/**
 * Pure decoders for the payment challenges a 402 can carry (protocols.md section 7): the x402 v2
 * `PAYMENT-REQUIRED` header, an x402 v1 body or v2 body copy, and MPP `WWW-Authenticate: Payment`.
 * Each returns the offers it read, in the index's words (chain name, asset symbol, Price), or the
 * problem that makes it no valid challenge. No I/O; never throws.
 *
 * Libraries: `@x402/core` decodes the header (after lenient base64 repair) and its schemas say whether
 * the challenge would pass the reference client (a note, not the verdict: section 7 is looser on
 * `resource`/`maxTimeoutSeconds` and stricter on `amount`); `mppx` parses each Payment challenge.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { isPaymentRequiredV1, isPaymentRequiredV2 } from '@x402/core/schemas';
import { Challenge } from 'mppx';
import { z } from 'zod';
import type { Price, StatedAccepts } from '../data/types.ts';
import { toCaip2, toChainName } from '../domain/chains.ts';
import type { Offer } from '../domain/schemas.ts';
import { UNKNOWN_PRICE, getAssetDecimals, isUsdAsset, toAssetSymbol, toPrice } from './normalize.ts';
import { toOffer, toSubscriptionUnit } from './offers.ts';
import { isRecord, readText } from './sources/read.ts';

/** Where a valid challenge was found. */
export type { StatedAccepts };

export type ChallengeSignal = 'x402-v2-header' | 'x402-v2-body' | 'x402-v1-body' | 'mpp-header';

/** Why a signal that is present is no valid challenge (`absent`: the signal is not there at all). */
export type ChallengeProblem =
  | 'absent'
  | 'unreadable-header'
  | 'not-x402-v2'
  | 'no-accepts'
  | 'sign-in-only'
  | 'incomplete-accepts'
  | 'malformed-payment';

interface OfferTerms {
  /** The index's chain name, or null when the offer is not on a chain (Stripe) or does not say which (Tempo without chainId). */
  chain: string | null;
  /** The asset symbol (unknown contracts verbatim), or null when not stated. */
  asset: string | null;
  price: Price;
  /** x402 `payTo` or MPP `request.recipient`. */
  payTo: string | null;
}

/** One way to pay that a challenge offers: an x402 `accepts` entry or one MPP Payment challenge; `offer` in full. */
export type PaymentOffer = ({ rail: 'x402'; scheme: string } | { rail: 'mpp'; method: string; intent: string }) &
  OfferTerms & { offer: Offer };

/** What one decoder read. */
export type ChallengeRead =
  | { valid: true; signal: ChallengeSignal; offers: PaymentOffer[]; notes: string[]; x402?: StatedAccepts }
  | { valid: false; problem: ChallengeProblem };

const ABSENT: ChallengeRead = Object.freeze({ valid: false, problem: 'absent' });
const invalid = (problem: ChallengeProblem): ChallengeRead => ({ valid: false, problem });

const text = z.string().trim().min(1);
/** Section 7: every v2 entry has scheme, network, a digit-string amount, payTo and asset. */
const V2Entry = z.object({ scheme: text, network: text, amount: z.string().regex(/^\d+$/), payTo: text, asset: text });
/** Section 7: every v1 entry has scheme, network, maxAmountRequired, payTo and asset. */
const V1Entry = z.object({ scheme: text, network: text, maxAmountRequired: text, payTo: text, asset: text });

/** Minor units of the ISO 4217 currencies MPP fiat methods (Stripe) name. */
export const ISO_DECIMALS: ReadonlyMap<string, number> = new Map([['usd', 2]]);

interface OfferFacts {
  chain: string | null;
  /** Contract address, mint or ISO code, as the challenge wrote it. */
  asset: string | null;
  amount: unknown;
  /** Whether the amount is the price of one unit (x402 `exact`, MPP `charge`/`session`), not a maximum. */
  isUnitPrice: boolean;
  unit?: string | undefined;
  payTo: string | null;
}

/** Terms of one offer; a price only in a USD asset whose decimals are known, never a guess. */
function toOfferTerms({ chain, asset, amount, isUnitPrice, unit, payTo }: OfferFacts): OfferTerms {
  const symbol = asset === null ? null : toAssetSymbol(chain ?? '', asset);
  const decimals =
    asset === null ? null : chain === null ? (ISO_DECIMALS.get(asset.toLowerCase()) ?? null) : getAssetDecimals(chain, asset);
  const priced = isUnitPrice && symbol !== null && isUsdAsset(symbol) && decimals !== null;
  return { chain, asset: symbol, price: priced ? toPrice(readText(amount), decimals, unit) : UNKNOWN_PRICE, payTo };
}

/** x402Version as a number; `"2"` is tolerated (an extension spec example writes it) and noted. */
function readVersion(value: unknown, notes: string[]): 1 | 2 | null {
  if (value === 1 || value === 2) return value;
  if (value !== '1' && value !== '2') return null;
  notes.push('x402Version is a string');
  return Number(value) as 1 | 2;
}

function readPaymentRequired(json: Record<string, unknown>, version: 1 | 2, signal: ChallengeSignal, notes: string[]): ChallengeRead {
  const accepts = json.accepts;
  if (!Array.isArray(accepts) || accepts.length === 0) {
    const signIn = isRecord(json.extensions) && json.extensions['sign-in-with-x'] !== undefined;
    return invalid(signIn ? 'sign-in-only' : 'no-accepts');
  }
  const offers: PaymentOffer[] = [];
  for (const accept of accepts) {
    const entry = version === 2 ? V2Entry.safeParse(accept) : V1Entry.safeParse(accept);
    if (!entry.success) return invalid('incomplete-accepts');
    const { scheme, network, payTo, asset } = entry.data;
    const amount = 'amount' in entry.data ? entry.data.amount : entry.data.maxAmountRequired;
    const terms = toOfferTerms({ chain: toChainName(network), asset, amount, isUnitPrice: scheme === 'exact', payTo });
    const offer = toOffer({ rail: 'x402', scheme, network, asset, amount, payTo, seenIn: 'challenge' });
    offers.push({ rail: 'x402', scheme, ...terms, offer });
  }
  const reference = version === 2 ? isPaymentRequiredV2(json) : isPaymentRequiredV1(json);
  if (!reference) notes.push('fails the @x402/core schema');
  if (signal === 'x402-v2-body') notes.push('x402 v2 challenge in the body');
  return { valid: true, signal, offers, notes, x402: { x402Version: version, accepts: accepts as Array<Record<string, unknown>> } };
}

/**
 * Repairs a base64 value leniently: drops whitespace (around it, or inside where a value was folded), maps
 * base64url `-`/`_` to `+`/`/`, restores padding.
 * Returns null when it cannot be base64 at all.
 */
export function toCanonicalBase64(value: string): string | null {
  const bare = value.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(bare) || bare.length % 4 === 1) return null;
  return bare.padEnd(Math.ceil(bare.length / 4) * 4, '=');
}

/**
 * Decodes an x402 v2 `PAYMENT-REQUIRED` header value (lenient base64, flagged when non-canonical).
 * @example readX402Header(response.headers['payment-required']) // { valid: true, signal: 'x402-v2-header', offers: [...] }
 */
export function readX402Header(value: string): ChallengeRead {
  const canonical = toCanonicalBase64(value);
  if (canonical === null) return invalid('unreadable-header');
  let json: unknown;
  try {
    json = decodePaymentRequiredHeader(canonical);
  } catch {
    return invalid('unreadable-header');
  }
  if (!isRecord(json)) return invalid('unreadable-header');
  const notes = canonical === value ? [] : ['non-canonical base64'];
  if (readVersion(json.x402Version, notes) !== 2) return invalid('not-x402-v2');
  return readPaymentRequired(json, 2, 'x402-v2-header', notes);
}

/**
 * Reads a JSON response body as an x402 v1 challenge or a v2 PaymentRequired copy; `absent` when
 * the body says nothing of x402 (no `x402Version`).
 * @example readX402Body(JSON.parse(bodyText)) // { valid: true, signal: 'x402-v1-body', offers: [...] }
 */
export function readX402Body(json: unknown): ChallengeRead {
  if (!isRecord(json)) return ABSENT;
  const notes: string[] = [];
  const version = readVersion(json.x402Version, notes);
  if (version === null) return ABSENT;
  return readPaymentRequired(json, version, version === 2 ? 'x402-v2-body' : 'x402-v1-body', notes);
}

/**
 * Offsets where a `Payment` auth scheme starts in a (possibly comma-joined) `WWW-Authenticate`
 * value: the token followed by whitespace, at the start or after a comma, outside quoted strings.
 */
export function findPaymentSchemes(value: string): number[] {
  const starts: number[] = [];
  let inQuotes = false;
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (inQuotes) {
      if (char === '\\') i++;
      else if (char === '"') inQuotes = false;
    } else if (char === '"') {
      inQuotes = true;
    } else if ((char === 'P' || char === 'p') && /^payment\s/i.test(value.slice(i, i + 8)) && isAtSchemeBoundary(value, i)) {
      starts.push(i);
    }
  }
  return starts;
}

/** Whether only whitespace separates offset `at` from the start of the value or a preceding comma. */
function isAtSchemeBoundary(value: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && /\s/.test(value.charAt(i))) i--;
  return i < 0 || value.charAt(i) === ',';
}

/**
 * Methods whose networks only `methodDetails.chainId` tells apart (Tempo mainnet 4217 or testnet 42431, any EVM
 * chain): without it the challenge names no chain (the spec's default is the testnet, a client's is its own chain),
 * so none is recorded rather than a guess.
 */
const CHAIN_ID_METHODS: ReadonlySet<string> = new Set(['tempo', 'evm']);

/** The chain of an MPP challenge: `methodDetails.chainId` (EVM), else the method when it alone names a chain. */
export function toMppChain(method: string, request: Record<string, unknown>): string | null {
  const chainId = isRecord(request.methodDetails) ? request.methodDetails.chainId : undefined;
  if ((typeof chainId === 'number' && Number.isSafeInteger(chainId)) || (typeof chainId === 'string' && /^\d+$/.test(chainId))) {
    return toChainName(`eip155:${chainId}`);
  }
  if (CHAIN_ID_METHODS.has(method.toLowerCase())) return null;
  const chain = toChainName(method);
  return toCaip2(chain) === null ? null : chain;
}

/** One Payment challenge, parsed by mppx; null when malformed or missing section 7's fields. */
function readMppChallenge(chunk: string): PaymentOffer | null {
  let challenge: Challenge.Challenge;
  try {
    challenge = Challenge.deserialize(chunk);
  } catch {
    return null;
  }
  const { method, intent, request } = challenge;
  if (readText(challenge.realm) === null || readText(method) === null || readText(intent) === null) return null;
  const currency = readText(request.currency);
  if (intent === 'charge' && (readText(request.amount) === null || currency === null)) return null;
  const chain = toMppChain(method, request);
  const terms = toOfferTerms({
    chain,
    asset: currency,
    amount: request.amount,
    isUnitPrice: intent === 'charge' || intent === 'session',
    unit: readText(request.unitType) ?? undefined,
    payTo: readText(request.recipient),
  });
  const offer = toOffer({
    rail: 'mpp', scheme: intent, method, network: null, chain, asset: currency, amount: request.amount,
    unit: intent === 'subscription' ? toSubscriptionUnit(request) : readText(request.unitType), payTo: readText(request.recipient),
    seenIn: 'challenge',
  });
  return { rail: 'mpp', method, intent, ...terms, offer };
}

/**
 * Reads every MPP `Payment` challenge of a `WWW-Authenticate` value (several may be comma-joined,
 * other schemes such as Bearer may share it). Valid when at least one challenge is; `absent` when
 * no Payment scheme is there.
 * @example readMppChallenges('Bearer realm="x", Payment id="a", realm="api.test", method="tempo", intent="charge", request="eyJ..."')
 */
export function readMppChallenges(wwwAuthenticate: string): ChallengeRead {
  const starts = findPaymentSchemes(wwwAuthenticate);
  if (starts.length === 0) return ABSENT;
  const read = starts.map((start, i) => readMppChallenge(wwwAuthenticate.slice(start, starts[i + 1])));
  const offers = read.filter((offer): offer is PaymentOffer => offer !== null);
  if (offers.length === 0) return invalid('malformed-payment');
  const notes = offers.length < read.length ? ['some Payment challenges are malformed'] : [];
  return { valid: true, signal: 'mpp-header', offers, notes };
}
