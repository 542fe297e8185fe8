import { decodePaymentSignatureHeader, type FacilitatorClient } from '@x402/core/http';
import { parsePaymentPayload } from '@x402/core/schemas';
import { FacilitatorTimeoutError, SettleError, VerifyError, type PaymentPayload, type PaymentRequirements, type SettleResponse } from '@x402/core/types';
import { explainReason, withoutHex } from './reasons.ts';

export type PaymentOutcome =
  | { paid: true; body: object; settlement: SettleResponse }
  | { paid: false; reason: string; settlement?: SettleResponse };

export interface AcceptPaymentOptions {
  facilitator: FacilitatorClient & { url?: string };
  /** The `PAYMENT-SIGNATURE` header as received. */
  header: string;
  requirements: PaymentRequirements;
  /** Produces the service's answer; runs only after the facilitator has verified the payment. */
  produce: () => Promise<object>;
}

/**
 * The paid path of a demo service: decode the payment, check it is for these terms, verify it with the facilitator,
 * produce the answer, settle. Nothing is served unless settlement succeeds; every failure comes back with its reason.
 * @example const outcome = await acceptPayment({ facilitator, header, requirements, produce: () => service.respond(params, context) });
 */
export async function acceptPayment({ facilitator, header, requirements, produce }: AcceptPaymentOptions): Promise<PaymentOutcome> {
  const payload = toPaymentPayload(header);
  if (typeof payload === 'string') return { paid: false, reason: payload };
  if (!isForTerms(payload.accepted, requirements)) {
    return { paid: false, reason: 'the payment is for other terms than this service asks (amount, recipient, token, network or timeout)' };
  }
  const where = facilitator.url ?? 'the facilitator';
  try {
    const verification = await facilitator.verify(payload, requirements);
    if (!verification.isValid) return { paid: false, reason: explainReason(verification.invalidReason) };
  } catch (error) {
    if (error instanceof VerifyError) return { paid: false, reason: explainReason(error.invalidReason) };
    return { paid: false, reason: `the payment facilitator (${where}) ${toUnreachable(error)}; nothing was paid` };
  }
  const body = await produce();
  try {
    const settlement = await facilitator.settle(payload, requirements);
    if (!settlement.success) return { paid: false, reason: explainReason(settlement.errorReason), settlement };
    return { paid: true, body, settlement };
  } catch (error) {
    if (error instanceof SettleError) return { paid: false, reason: explainReason(error.errorReason) };
    return { paid: false, reason: `the payment facilitator (${where}) ${toUnreachable(error)} while settling; the outcome is unknown` };
  }
}

function toPaymentPayload(header: string): PaymentPayload | string {
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header.trim());
  } catch {
    return 'the PAYMENT-SIGNATURE header is not base64 of a JSON x402 payment payload';
  }
  const parsed = parsePaymentPayload(decoded);
  if (!parsed.success || parsed.data.x402Version !== 2) return 'the PAYMENT-SIGNATURE header is not an x402 version 2 payment payload';
  return parsed.data as PaymentPayload;
}

/** Whether the payment's `accepted` terms are this service's requirements (addresses compared case-insensitively). */
function isForTerms(accepted: PaymentRequirements, requirements: PaymentRequirements): boolean {
  const same = (a: unknown, b: unknown) => String(a).toLowerCase() === String(b).toLowerCase();
  return (
    accepted.scheme === requirements.scheme &&
    accepted.network === requirements.network &&
    accepted.amount === requirements.amount &&
    same(accepted.asset, requirements.asset) &&
    same(accepted.payTo, requirements.payTo) &&
    accepted.maxTimeoutSeconds === requirements.maxTimeoutSeconds &&
    accepted.extra?.name === requirements.extra?.name &&
    accepted.extra?.version === requirements.extra?.version
  );
}

function toUnreachable(error: unknown): string {
  if (error instanceof FacilitatorTimeoutError) return `did not answer within ${error.timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause?.code;
  return `could not be reached (${cause ?? (error instanceof Error ? withoutHex(error.message.slice(0, 200)) : 'unknown error')})`;
}
