import type { Hex, LocalAccount } from 'viem';
import type { Purchase } from '../schemas.ts';
import { newAuthorization, toAuthorizationDomain, toAuthorizationTypedData, type AuthorizationDomain, type TransferAuthorization } from '../typed-data.ts';

export interface SignApprovalOptions {
  /** Change the authorization before signing (e.g. another amount). */
  authorization?: Partial<TransferAuthorization>;
  /** Sign under another EIP-712 domain (e.g. another chain). */
  domain?: Partial<AuthorizationDomain>;
  /** Sign with this account while `from` stays the owner's. */
  signer?: LocalAccount;
  nowSeconds?: number;
}

/** What the approval page posts (the body of `POST /api/v1/purchases/{id}/approval`). */
export interface SignedApproval {
  authorization: TransferAuthorization;
  signature: Hex;
  domain: AuthorizationDomain;
}

/**
 * What the approval page posts, made in a test: the owner's EIP-3009 authorization for a purchase, signed.
 * @example const body = await signApproval(owner, purchase); await request(`/api/v1/purchases/${purchase.id}/approval`, postJson(body));
 */
export async function signApproval(owner: LocalAccount, purchase: Purchase, options: SignApprovalOptions = {}): Promise<SignedApproval> {
  const terms = purchase.payment_requirements;
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const authorization = { ...newAuthorization(terms, owner.address, nowSeconds), ...options.authorization };
  const domain = { ...toAuthorizationDomain(terms), ...options.domain };
  const signature = await (options.signer ?? owner).signTypedData(toAuthorizationTypedData(domain, authorization));
  return { authorization, signature, domain };
}
