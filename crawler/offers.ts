/**
 * Offers in the index's words (domain/schemas.ts `Offer`), from what a challenge or a directory states: one builder,
 * so an offer reads the same whoever stated it. Amounts stay exact (atomic digits and their decimal text); `usd` only
 * for a USD asset whose decimals are known, never a guess. Pure.
 */
import { toCaip2, toChainName } from '../domain/chains.ts';
import type { Offer } from '../domain/schemas.ts';
import { getAssetDecimals, isUsdAsset, toAssetSymbol, toDecimalText } from './normalize.ts';

/** An EVM contract or a base58 mint (Solana): an asset named by address rather than by a code or symbol. */
const ASSET_ADDRESS = /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/;

/** Minor units of the ISO 4217 currencies MPP fiat methods (Stripe) name. */
const ISO_DECIMALS: ReadonlyMap<string, number> = new Map([['usd', 2]]);

export interface OfferFacts {
  rail: Offer['rail'];
  scheme: string;
  method?: string | null;
  /** The network as stated (CAIP-2, a v1 name, or none). */
  network: string | null;
  /** The index's chain name when the network alone does not give it (an MPP method's chain). */
  chain?: string | null;
  /** Contract address, mint, ISO code or symbol, as stated. */
  asset: string | null;
  /** Base units as stated; anything but a digit string reads as not stated. */
  amount: unknown;
  /** An amount stated in whole units of the asset instead (x402scan's `price.amount` in USD): no atomic amount. */
  decimalAmount?: string | null;
  /** The decimals the statement gives (mpp.dev does), else those of the known contract. */
  decimals?: number | null;
  /** An MPP unitType or a subscription period; `call` when none. */
  unit?: string | null;
  payTo?: string | null;
  facilitator?: string | null;
  seenIn: string;
}

/** A unit word as an offer shows it: `request` reads `call`; anything odd reads `call`. */
function toUnit(unit: string | null | undefined): string {
  const word = unit?.trim().toLowerCase() ?? '';
  return word === '' || word === 'request' || !/^[a-z][a-z0-9_ -]{0,30}$/.test(word) ? 'call' : word;
}

/**
 * The period an MPP subscription is billed by (`month`, `3 weeks`), or null when it states none.
 * @example toSubscriptionUnit({ periodUnit: 'month', periodCount: 1 }) // 'month'
 */
export function toSubscriptionUnit(request: Record<string, unknown>): string | null {
  const unit = typeof request.periodUnit === 'string' ? request.periodUnit.trim().toLowerCase() : '';
  if (!/^(day|week|month|year)$/.test(unit)) return null;
  const count = Number(request.periodCount ?? 1);
  return Number.isInteger(count) && count > 1 ? `${count} ${unit}s` : unit;
}

function toDecimals(chain: string | null, asset: string | null, stated: number | null | undefined): number | null {
  if (typeof stated === 'number' && Number.isInteger(stated) && stated >= 0 && stated <= 36) return stated;
  if (asset === null) return null;
  return chain === null ? (ISO_DECIMALS.get(asset.toLowerCase()) ?? null) : getAssetDecimals(chain, asset);
}

/**
 * One offer from what was stated.
 * @example toOffer({ rail: 'x402', scheme: 'upto', network: 'eip155:8453', asset: '0x8335…2913', amount: '50000', seenIn: 'challenge' }).usd // 0.05
 */
export function toOffer(facts: OfferFacts): Offer {
  const chain = facts.chain !== undefined ? facts.chain : facts.network === null ? null : toChainName(facts.network);
  const address = facts.asset?.trim() || null;
  const symbol = address === null ? null : toAssetSymbol(chain ?? '', address);
  const atomic = typeof facts.amount === 'string' && /^\d{1,78}$/.test(facts.amount) ? facts.amount : null;
  const decimals = toDecimals(chain, address, facts.decimals);
  const stated = typeof facts.decimalAmount === 'string' && /^\d{1,20}(\.\d{1,20})?$/.test(facts.decimalAmount) ? facts.decimalAmount : null;
  const decimal = stated ?? (atomic === null || decimals === null ? null : toDecimalText(atomic, decimals));
  return {
    rail: facts.rail,
    scheme: facts.scheme,
    method: facts.method ?? null,
    network: facts.network ?? (chain === null ? null : toCaip2(chain)),
    chain,
    asset: { symbol, address: address !== null && ASSET_ADDRESS.test(address) ? address : null },
    amount: { atomic, decimal },
    usd: decimal !== null && symbol !== null && isUsdAsset(symbol) ? Number(decimal) : null,
    unit: toUnit(facts.unit),
    is_maximum: facts.rail === 'x402' && facts.scheme === 'upto',
    pay_to: facts.payTo ?? null,
    facilitator: facts.facilitator ?? null,
    seen_in: facts.seenIn,
  };
}
