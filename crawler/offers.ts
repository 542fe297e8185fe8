/**
 * Offers: the ways to pay a decoded challenge (or a discovery document) states, in the index's words (DESIGN,
 * "Endpoints": `Offer`). Pure; the decoders of crawler/challenge.ts say whether a challenge is valid, this only reads
 * what it states, so an invalid entry still shows what it asked for.
 */
import type { Offer } from '../domain/check.ts';
import { toChainName } from '../domain/chains.ts';
import { ISO_DECIMALS, toMppChain } from './challenge.ts';
import { getAssetDecimals, isUsdAsset, toAssetSymbol, toDecimalText } from './normalize.ts';
import { isRecord, readHttpUrl, readText } from './sources/read.ts';

interface Terms {
  rail: Offer['rail'];
  scheme: string | null;
  method: string | null;
  network: string | null;
  chain: string | null;
  asset: string | null;
  atomic: string | null;
  /** Decimals of the asset, when known: from its contract, an ISO code, or the document stating them. */
  decimals: number | null;
  unit: string;
  isMaximum: boolean;
  payTo: string | null;
  facilitator: string | null;
  seenIn: string;
}

/** A network id or amount as text: strings as given, numbers written out (a challenge may write either). */
function readScalar(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return readText(value);
}

/** An EVM contract or a base58 mint (Solana): an asset named by address rather than by code. */
const ASSET_ADDRESS = /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/;

function toOffer(terms: Terms): Offer {
  const { asset, atomic, chain } = terms;
  const symbol = asset === null ? null : toAssetSymbol(chain ?? '', asset);
  const decimals = terms.decimals
    ?? (asset === null ? null : chain === null ? (ISO_DECIMALS.get(asset.toLowerCase()) ?? null) : getAssetDecimals(chain, asset));
  const decimal = atomic !== null && /^\d{1,78}$/.test(atomic) && decimals !== null ? toDecimalText(atomic, decimals) : null;
  return {
    rail: terms.rail,
    scheme: terms.scheme,
    method: terms.method,
    network: terms.network,
    chain,
    asset: { symbol, address: asset !== null && ASSET_ADDRESS.test(asset) ? asset : null },
    amount: { atomic, decimal },
    usd: decimal !== null && symbol !== null && isUsdAsset(symbol) ? Number(decimal) : null,
    unit: terms.unit,
    is_maximum: terms.isMaximum,
    pay_to: terms.payTo,
    facilitator: terms.facilitator,
    seen_in: terms.seenIn,
  };
}

/**
 * The offers of an x402 PaymentRequired (v1 or v2, header or body): one per `accepts` entry that is an object.
 * `upto` amounts are ceilings; v1's `maxAmountRequired` is the price of an `exact` entry.
 * @example toX402Offers({ x402Version: 2, accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x8335…', payTo: '0x…' }] })[0].usd // 0.01
 */
export function toX402Offers(paymentRequired: unknown, seenIn = 'challenge'): Offer[] {
  const accepts = isRecord(paymentRequired) && Array.isArray(paymentRequired.accepts) ? paymentRequired.accepts : [];
  return accepts.filter(isRecord).map((entry) => {
    const network = readScalar(entry.network);
    const scheme = readText(entry.scheme);
    const extra = isRecord(entry.extra) ? entry.extra : {};
    return toOffer({
      rail: 'x402', scheme, method: null, network, chain: network === null ? null : toChainName(network),
      asset: readText(entry.asset), atomic: readScalar(entry.amount ?? entry.maxAmountRequired), decimals: null,
      unit: 'call', isMaximum: scheme === 'upto', payTo: readText(entry.payTo),
      facilitator: readHttpUrl(extra.facilitatorUrl ?? extra.facilitator), seenIn,
    });
  });
}

/** The unit an MPP request prices: a session's `unitType`, a subscription's period, else one call. */
function toMppUnit(intent: string | null, request: Record<string, unknown>): string {
  if (intent === 'session') return readText(request.unitType) ?? 'call';
  if (intent === 'subscription') return readText(request.periodUnit) ?? 'call';
  return 'call';
}

/**
 * The offer of one MPP Payment challenge from its `method`, `intent` and decoded `request`. A session's amount is its
 * price per unit (its `suggestedDeposit` is no price).
 * @example toMppOffer({ method: 'tempo', intent: 'charge', request: { amount: '10000', currency: '0x20c0…', recipient: '0x…', methodDetails: { chainId: 4217 } } }).chain // 'tempo'
 */
export function toMppOffer(challenge: { method: string | null; intent: string | null; request: Record<string, unknown> }, seenIn = 'challenge'): Offer {
  const { method, intent, request } = challenge;
  const chainId = isRecord(request.methodDetails) ? readScalar(request.methodDetails.chainId) : null;
  const decimals = typeof request.decimals === 'number' && Number.isInteger(request.decimals) ? request.decimals : null;
  return toOffer({
    rail: 'mpp', scheme: intent, method, network: chainId, chain: method === null ? null : toMppChain(method, request),
    asset: readText(request.currency), atomic: readScalar(request.amount), decimals, unit: toMppUnit(intent, request),
    isMaximum: false, payTo: readText(request.recipient), facilitator: null, seenIn,
  });
}
