/**
 * Real challenge formats the fleet serves: x402 v2 `PAYMENT-REQUIRED` headers (encoded by
 * `@x402/core/http`), x402 v1 bodies, and MPP `WWW-Authenticate: Payment` challenges (built and
 * serialized by `mppx`, HMAC-bound ids) with their problem+json body.
 */
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { Challenge } from 'mppx';

/** Base Sepolia USDC, the test network of the x402 facilitator. */
const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
/** Base mainnet USDC, the asset of most v1 challenges. */
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
/** Tempo mainnet USDC.e, the mppx default currency. */
export const TEMPO_USDC = '0x20C000000000000000000000b9537d11c60E8b50';
/** Where every fleet service is paid. */
const FLEET_PAY_TO = '0x1111111111111111111111111111111111111111';

const MPP_SECRET = 'fleet-secret';

/** What a fleet service charges and where, for its challenge and its directory listings. */
export interface Offer {
  url: string;
  /** USDC atomic units (6 decimals). */
  amount: string;
  description: string;
}

/** Where a v2 offer is paid: Base mainnet, or Base Sepolia for a service taking test money only. */
export type V2Network = 'base' | 'base-sepolia';
const V2_NETWORKS: Readonly<Record<V2Network, { network: `${string}:${string}`; asset: string }>> = {
  base: { network: 'eip155:8453', asset: BASE_USDC },
  'base-sepolia': { network: 'eip155:84532', asset: BASE_SEPOLIA_USDC },
};

/**
 * The v2 requirement of an offer: exact USDC on Base (or Base Sepolia).
 * @example toV2Requirement({ url, amount: '10000', description: 'Quotes' }).network // 'eip155:8453'
 */
export function toV2Requirement(offer: Offer, on: V2Network = 'base'): PaymentRequired['accepts'][number] {
  return {
    scheme: 'exact',
    network: V2_NETWORKS[on].network,
    amount: offer.amount,
    asset: V2_NETWORKS[on].asset,
    payTo: FLEET_PAY_TO,
    maxTimeoutSeconds: 300,
    extra: { name: 'USDC', version: '2' },
  };
}

/**
 * The v1 requirement of an offer: exact USDC on Base, with the advertised method.
 * @example toV1Requirement(offer, 'GET').maxAmountRequired // offer.amount
 */
export function toV1Requirement(offer: Offer, method: string | null): Record<string, unknown> {
  return {
    scheme: 'exact',
    network: 'base',
    maxAmountRequired: offer.amount,
    resource: offer.url,
    description: offer.description,
    mimeType: 'application/json',
    payTo: FLEET_PAY_TO,
    maxTimeoutSeconds: 60,
    asset: BASE_USDC,
    outputSchema: { input: { type: 'http', ...(method === null ? {} : { method }) } },
    extra: { name: 'USD Coin', version: '2' },
  };
}

/**
 * The `PAYMENT-REQUIRED` value of an offer; `padBytes` pads the description to make it oversized.
 * @example toPaymentRequiredHeader({ url, amount: '10000', description: 'Quotes' })
 */
export function toPaymentRequiredHeader(offer: Offer, padBytes = 0, on: V2Network = 'base'): string {
  const description = padBytes > 0 ? `${offer.description} ${'.'.repeat(padBytes)}` : offer.description;
  const paymentRequired: PaymentRequired = {
    x402Version: 2,
    error: 'Payment required',
    resource: { url: offer.url, description, mimeType: 'application/json' },
    accepts: [toV2Requirement(offer, on)],
  };
  return encodePaymentRequiredHeader(paymentRequired);
}

/**
 * A `PAYMENT-REQUIRED` value that decodes only leniently: `x402Version` written as the string "2" (as an extension
 * spec example does) and base64 without its padding (protocols.md: tolerate both, record it).
 * @example toLenientPaymentRequiredHeader(offer) // no trailing '='
 */
export function toLenientPaymentRequiredHeader(offer: Offer): string {
  const paymentRequired = {
    x402Version: '2',
    error: 'Payment required',
    resource: { url: offer.url, description: `${offer.description}.`, mimeType: 'application/json' },
    accepts: [toV2Requirement(offer)],
  };
  return Buffer.from(JSON.stringify(paymentRequired)).toString('base64').replace(/=+$/, '');
}

/**
 * An x402 v1 challenge body, as the reference v1 servers send it.
 * @example res.end(toV1Body(offer, 'GET'))
 */
export function toV1Body(offer: Offer, method: string | null): string {
  return JSON.stringify({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [toV1Requirement(offer, method)] });
}

/**
 * A v1-looking 402 body whose `accepts` is empty: no valid challenge.
 * @example res.end(toNoAcceptsBody())
 */
export function toNoAcceptsBody(): string {
  return JSON.stringify({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [] });
}

/**
 * An MPP tempo/charge challenge for the offer.
 * @example res.setHeader('www-authenticate', toTempoChallenge(offer, '127.0.0.1:4000'))
 */
export function toTempoChallenge(offer: Offer, realm: string): string {
  const request = { amount: offer.amount, currency: TEMPO_USDC, recipient: FLEET_PAY_TO, methodDetails: { chainId: 4217 } };
  return Challenge.serialize(Challenge.from({ secretKey: MPP_SECRET, realm, method: 'tempo', intent: 'charge', request }));
}

/**
 * An MPP stripe/charge challenge: the offer's price in US cents (at least one).
 * @example toStripeChallenge({ url, amount: '10000', description: 'Quotes' }, realm) // request amount '1'
 */
export function toStripeChallenge(offer: Offer, realm: string): string {
  const cents = String(Math.max(1, Math.round(Number(offer.amount) / 10_000)));
  const request = { amount: cents, currency: 'usd', methodDetails: { networkId: 'profile_fleet', paymentMethodTypes: ['card', 'link'] } };
  return Challenge.serialize(Challenge.from({ secretKey: MPP_SECRET, realm, method: 'stripe', intent: 'charge', request }));
}

/**
 * The problem+json body mppx sends with its challenges.
 * @example res.end(toMppProblemBody())
 */
export function toMppProblemBody(): string {
  return JSON.stringify({
    type: 'https://paymentauth.org/problems/payment-required',
    title: 'Payment Required',
    status: 402,
    detail: 'Payment is required.',
  });
}

/**
 * The HTML paywall an x402 server shows browsers: status 402 but no challenge header.
 * @example res.end(toHtmlPaywall(offer))
 */
export function toHtmlPaywall(offer: Offer): string {
  return `<!doctype html><html><head><title>Payment Required</title></head><body><h1>Payment Required</h1><p>${offer.description}: connect a wallet to pay.</p></body></html>`;
}
