import type { Offer, Price } from './schemas.ts';

/**
 * How an offer's price reads, with its scheme and unit: `$0.01 / call`, `up to $0.05 / call` (a ceiling, x402
 * `upto`), `$0.000002 / llm_token` (an MPP session's price per unit); null when its amount is not in US dollars.
 * @example toOfferDisplay({ ...offer, amount: { atomic: '50000', decimal: '0.05' }, usd: 0.05, is_maximum: true }) // 'up to $0.05 / call'
 */
export function toOfferDisplay(offer: Pick<Offer, 'amount' | 'usd' | 'unit' | 'is_maximum'>): string | null {
  if (offer.usd === null || offer.amount.decimal === null) return null;
  return `${offer.is_maximum ? 'up to ' : ''}$${offer.amount.decimal} / ${offer.unit}`;
}

/**
 * An endpoint's price: its cheapest offer in US dollars, shown with that offer's scheme and unit; `listed` (the
 * directories' price) when no offer states one.
 * @example toEndpointPrice([tempoCharge, baseUpto], UNKNOWN) // { usd: 0.01, display: '$0.01 / call' }
 */
export function toEndpointPrice(offers: readonly Offer[], listed: Price): Price {
  let best: Offer | null = null;
  for (const offer of offers) if (offer.usd !== null && (best === null || offer.usd < best.usd!)) best = offer;
  return best === null ? listed : { usd: best.usd, display: toOfferDisplay(best) };
}
