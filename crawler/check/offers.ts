/**
 * The offers a seller's check shows: what each decoded challenge or discovery document states, read through the
 * crawler's one offer builder (crawler/offers.ts). Unlike the crawler's readers, these read invalid entries too, so a
 * check still shows what a broken challenge asked for; a missing scheme or intent reads `unknown`.
 */
import type { Offer } from '../../domain/schemas.ts';
import { toMppChain } from '../challenge.ts';
import { toOffer, toSubscriptionUnit } from '../offers.ts';
import { isRecord, readHttpUrl, readText } from '../sources/read.ts';

/** A network id or amount as text: strings as given, numbers written out (a challenge may write either). */
function readScalar(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return readText(value);
}

/**
 * The offers of an x402 PaymentRequired (v1 or v2, header or body): one per `accepts` entry that is an object.
 * `upto` amounts are ceilings; v1's `maxAmountRequired` is the price of an `exact` entry.
 * @example toX402Offers({ x402Version: 2, accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x8335…', payTo: '0x…' }] })[0].usd // 0.01
 */
export function toX402Offers(paymentRequired: unknown, seenIn = 'challenge'): Offer[] {
  const accepts = isRecord(paymentRequired) && Array.isArray(paymentRequired.accepts) ? paymentRequired.accepts : [];
  return accepts.filter(isRecord).map((entry) => {
    const extra = isRecord(entry.extra) ? entry.extra : {};
    return toOffer({
      rail: 'x402', scheme: readText(entry.scheme) ?? 'unknown', network: readScalar(entry.network), asset: readText(entry.asset),
      amount: readScalar(entry.amount ?? entry.maxAmountRequired), payTo: readText(entry.payTo),
      facilitator: readHttpUrl(extra.facilitatorUrl ?? extra.facilitator), seenIn,
    });
  });
}

/**
 * The offer of one MPP Payment challenge from its `method`, `intent` and decoded `request`. A session's amount is its
 * price per unit (its `suggestedDeposit` is no price).
 * @example toMppOffer({ method: 'tempo', intent: 'charge', request: { amount: '10000', currency: '0x20c0…', recipient: '0x…', methodDetails: { chainId: 4217 } } }).chain // 'tempo'
 */
export function toMppOffer(challenge: { method: string | null; intent: string | null; request: Record<string, unknown> }, seenIn = 'challenge'): Offer {
  const { method, intent, request } = challenge;
  return toOffer({
    rail: 'mpp', scheme: intent ?? 'unknown', method, network: null, chain: method === null ? null : toMppChain(method, request),
    asset: readText(request.currency), amount: readScalar(request.amount),
    decimals: typeof request.decimals === 'number' ? request.decimals : null,
    unit: intent === 'subscription' ? toSubscriptionUnit(request) : readText(request.unitType), payTo: readText(request.recipient), seenIn,
  });
}
