import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { JsonReply } from '../http.ts';
import type { DemoService } from './service.ts';

/** The `error` of a first, unpaid challenge. */
export const PAYMENT_REQUIRED = 'Payment required';

/**
 * The x402 v2 challenge of a demo service for one request URL.
 * @example toPaymentRequired(webSearch, requirements, 'https://staging.example/api/demo/services/web-search?query_id=x402-facilitators')
 */
export function toPaymentRequired(
  service: DemoService,
  requirements: PaymentRequirements,
  resourceUrl: string,
  error: string = PAYMENT_REQUIRED,
): PaymentRequired {
  return {
    x402Version: 2,
    error,
    resource: { url: resourceUrl, description: service.description, mimeType: 'application/json' },
    accepts: [requirements],
  };
}

/**
 * HTTP 402 carrying the challenge in `PAYMENT-REQUIRED` (the JSON body mirrors it); after a failed settlement
 * also the failed `PAYMENT-RESPONSE`.
 * @example return toChallengeReply(toPaymentRequired(service, requirements, event.url.href));
 */
export function toChallengeReply(paymentRequired: PaymentRequired, settlement?: SettleResponse): JsonReply {
  const headers: Record<string, string> = {
    'payment-required': encodePaymentRequiredHeader(paymentRequired),
    'cache-control': 'no-store',
  };
  if (settlement) headers['payment-response'] = encodePaymentResponseHeader(settlement);
  return new JsonReply(402, headers, paymentRequired);
}
