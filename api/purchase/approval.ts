import type { PaymentPayload } from '@x402/core/types';
import { getAddress, isAddressEqual, recoverTypedDataAddress, type Hex } from 'viem';
import type { PurchaseRecord } from '../../data/purchases.ts';
import { apiError } from '../errors.ts';
import { toRequirements } from '../demo/terms.ts';
import type { ApprovalRequest } from './schemas.ts';
import { toAuthorizationDomain, toAuthorizationTypedData, type AuthorizationDomain, type TransferAuthorization } from './typed-data.ts';

/** x402's facilitators refuse an authorization that ends sooner than this; so do we, before paying anything. */
const MIN_VALIDITY_SECONDS = 6;
const EOA_SIGNATURE_HEX_LENGTH = 2 + 65 * 2;

/**
 * Checks the owner's signed authorization against the purchase, each fault refused with its reason (400):
 * a smart-contract wallet signature, the domain (chain, token name and version, contract), the recipient,
 * the amount, the validity window, and finally that the signature recovers to `from` for exactly these terms.
 * Answers the x402 payment payload that pays the purchase's service.
 * @example const payload = await assertApproval(purchase, body, new Date());
 */
export async function assertApproval(purchase: PurchaseRecord, approval: ApprovalRequest, now: Date): Promise<PaymentPayload> {
  const requirements = toRequirements({ amount: purchase.amount_atomic, asset: purchase.asset, payTo: purchase.pay_to });
  const expected = toAuthorizationDomain(requirements);
  const authorization = approval.authorization as TransferAuthorization;
  const signature = approval.signature as Hex;
  if (signature.length !== EOA_SIGNATURE_HEX_LENGTH) {
    refuse('This is not a regular-key (EOA) signature. Smart-contract wallets are not yet supported: approve with a browser wallet whose account is a regular key.');
  }
  if (approval.domain) assertDomain(approval.domain, expected);
  if (!isAddressEqual(authorization.to, requirements.payTo)) {
    refuse(`The authorization pays ${getAddress(authorization.to)}, not the recipient shown, ${requirements.payTo}.`);
  }
  if (authorization.value !== requirements.amount) {
    refuse(`The authorization is for ${authorization.value} atomic USDC, not the amount shown, ${requirements.amount}.`);
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (BigInt(authorization.validAfter) > BigInt(nowSeconds)) {
    refuse('The authorization is not valid yet (validAfter is in the future). Check the computer clock and sign again.');
  }
  if (BigInt(authorization.validBefore) < BigInt(nowSeconds + MIN_VALIDITY_SECONDS)) {
    refuse('The authorization has expired (validBefore has passed). Sign again.');
  }
  const signer = await recoverTypedDataAddress({
    ...toAuthorizationTypedData(expected, authorization),
    signature,
  }).catch(() => null);
  if (!signer || !isAddressEqual(signer, authorization.from)) {
    refuse(
      `The signature was not made by ${getAddress(authorization.from)} for exactly this payment ` +
        `(${requirements.extra.name} version ${requirements.extra.version} on chain ${expected.chainId}). Sign again with that account.`,
    );
  }
  return {
    x402Version: 2,
    resource: { url: purchase.resource_url, mimeType: 'application/json' },
    accepted: requirements,
    payload: { authorization: { ...authorization, from: getAddress(authorization.from), to: getAddress(authorization.to) }, signature },
  };
}

function assertDomain(signed: NonNullable<ApprovalRequest['domain']>, expected: AuthorizationDomain): void {
  if (signed.chainId !== expected.chainId) {
    refuse(`The wallet signed for chain ${signed.chainId}; this payment is on Base Sepolia (chain ${expected.chainId}). Switch the wallet to Base Sepolia and sign again.`);
  }
  if (signed.name !== expected.name || signed.version !== expected.version) {
    refuse(`The wallet signed for the token domain "${signed.name}" version "${signed.version}"; Base Sepolia USDC signs as "${expected.name}" version "${expected.version}".`);
  }
  if (!isAddressEqual(signed.verifyingContract as Hex, expected.verifyingContract)) {
    refuse(`The wallet signed for token contract ${signed.verifyingContract}; the payment is in USDC at ${expected.verifyingContract}.`);
  }
}

function refuse(message: string): never {
  throw apiError(400, 'invalid_json', message);
}
