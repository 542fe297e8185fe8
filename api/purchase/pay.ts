import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import type { PurchaseOutcome, PurchaseRecord } from '../../data/purchases.ts';
import { withoutHex } from '../demo/reasons.ts';

/** Anything that answers a `Request` in process, like the h3 app itself. */
export interface Fetchable {
  fetch: (request: Request) => Response | Promise<Response>;
}

/**
 * Pays for a purchase the way any x402 client would: calls the demo service with the owner's payment in
 * `PAYMENT-SIGNATURE`, where the service verifies it, answers and settles. Dispatched in process to this server
 * (the purchase API and the demo services share the staging origin). Never throws; a failure comes back with its reason.
 * @example const outcome = await payThroughService(event.app, purchase, payload);
 */
export async function payThroughService(server: Fetchable, purchase: PurchaseRecord, payload: PaymentPayload): Promise<PurchaseOutcome> {
  try {
    const response = await server.fetch(
      new Request(purchase.resource_url, {
        headers: { 'payment-signature': encodePaymentSignatureHeader(payload), accept: 'application/json' },
      }),
    );
    if (response.status === 200) {
      const settlement = decodePaymentResponseHeader(response.headers.get('payment-response') ?? '');
      return { status: 'completed', transaction_hash: settlement.transaction, response: (await response.json()) as object };
    }
    const challenge = response.headers.get('payment-required');
    const reason = challenge ? decodePaymentRequiredHeader(challenge).error : `the service answered HTTP ${response.status}`;
    const settled = response.headers.get('payment-response');
    return {
      status: 'failed',
      reason: `The payment did not go through: ${withoutHex(reason ?? 'no reason given')}.`,
      transaction_hash: settled ? decodePaymentResponseHeader(settled).transaction || null : null,
    };
  } catch (error) {
    console.error(error);
    return { status: 'failed', reason: 'The payment did not go through: the service could not be called or its answer could not be read.' };
  }
}
