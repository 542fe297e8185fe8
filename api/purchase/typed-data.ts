import { authorizationTypes } from '@x402/evm';
import { bytesToHex, getAddress, type Address, type Hex } from 'viem';

/**
 * The EIP-3009 `TransferWithAuthorization` typed data, shared by the approval page (which asks the wallet to sign it),
 * the server (which recovers the signer) and the tests. Browser-safe: viem and `@x402/evm`'s types only.
 */

/** The x402 payment terms an authorization is built from (a subset of x402 `PaymentRequirements`). */
export interface AuthorizationTerms {
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { name: string; version: string };
}

/** The authorization as x402 carries it: every number a decimal string. */
export interface TransferAuthorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

export interface AuthorizationDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

/**
 * The chain id of a CAIP-2 `eip155:<id>` network.
 * @example toChainId('eip155:84532') // 84532
 */
export function toChainId(network: string): number {
  const match = /^eip155:(\d+)$/.exec(network);
  if (!match) throw new Error(`not an EVM network: ${network}`);
  return Number(match[1]);
}

/**
 * The token's EIP-712 domain for these terms: name and version from `extra`, the chain, the token contract.
 * @example toAuthorizationDomain(terms) // { name: 'USDC', version: '2', chainId: 84532, verifyingContract: '0x036C…' }
 */
export function toAuthorizationDomain(terms: AuthorizationTerms): AuthorizationDomain {
  return { name: terms.extra.name, version: terms.extra.version, chainId: toChainId(terms.network), verifyingContract: getAddress(terms.asset) };
}

/**
 * A fresh authorization of exactly the amount to exactly the recipient: valid from 10 minutes ago (clock skew)
 * until `maxTimeoutSeconds` from now, with a random 32-byte nonce (x402's client does the same).
 * @example const authorization = newAuthorization(terms, account.address, Math.floor(Date.now() / 1000));
 */
export function newAuthorization(terms: AuthorizationTerms, from: Address, nowSeconds: number): TransferAuthorization {
  return {
    from: getAddress(from),
    to: getAddress(terms.payTo),
    value: terms.amount,
    validAfter: String(nowSeconds - 600),
    validBefore: String(nowSeconds + terms.maxTimeoutSeconds),
    nonce: bytesToHex(crypto.getRandomValues(new Uint8Array(32))),
  };
}

/**
 * The typed data to sign (`eth_signTypedData_v4`) or to recover the signer from.
 * @example const signature = await account.signTypedData(toAuthorizationTypedData(toAuthorizationDomain(terms), authorization));
 */
export function toAuthorizationTypedData(domain: AuthorizationDomain, authorization: TransferAuthorization) {
  return {
    domain,
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization' as const,
    message: {
      from: getAddress(authorization.from),
      to: getAddress(authorization.to),
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  };
}
