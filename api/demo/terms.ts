import type { PaymentRequirements } from '@x402/core/types';
// viem's utils entry, not all of viem: a demo service's 402, which every probe pass asks for, loads the address
// checksum alone; the rest of viem waits for a purchase.
import { getAddress } from 'viem/utils';
import type { Config } from '../config.ts';
import type { DemoService } from './service.ts';

/** The payment terms every demo service shares: x402 v2 `exact` in USDC on Base Sepolia. */
export const DEMO_PAYMENT = {
  protocol: 'x402',
  x402Version: 2,
  scheme: 'exact',
  network: 'eip155:84532',
  chainId: 84532,
  networkLabel: 'Base Sepolia (testnet)',
  /** The token's EIP-712 domain: Base Sepolia USDC signs as "USDC" version "2". */
  asset: { symbol: 'USDC', decimals: 6, eip712: { name: 'USDC', version: '2' } },
  maxTimeoutSeconds: 300,
  explorerTxUrl: 'https://sepolia.basescan.org/tx/',
} as const;

/**
 * A decimal USDC amount in atomic units (decimal times 10^6), exactly, as a digit string.
 * @example toAtomic('0.003') // '3000'
 */
export function toAtomic(decimal: string): string {
  const [whole = '0', fraction = ''] = decimal.split('.');
  if (!/^\d+$/.test(whole) || !/^\d*$/.test(fraction) || fraction.length > DEMO_PAYMENT.asset.decimals) {
    throw new Error(`not a USDC amount: "${decimal}"`);
  }
  return BigInt(whole + fraction.padEnd(DEMO_PAYMENT.asset.decimals, '0')).toString();
}

/**
 * The x402 payment requirements of a demo service: what its challenge asks for and what a payment must match.
 * @example toPaymentRequirements(webSearch, config).amount // '3000'
 */
export function toPaymentRequirements(service: DemoService, config: Pick<Config, 'payToAddress' | 'usdcAddress'>): PaymentRequirements {
  return toRequirements({ amount: toAtomic(service.price), asset: config.usdcAddress, payTo: config.payToAddress });
}

/**
 * The x402 `exact` requirements for an atomic amount of the token at `asset`, paid to `payTo`.
 * @example toRequirements({ amount: '3000', asset: config.usdcAddress, payTo: config.payToAddress })
 */
export function toRequirements(terms: { amount: string; asset: string; payTo: string }) {
  return {
    scheme: DEMO_PAYMENT.scheme,
    network: DEMO_PAYMENT.network,
    amount: terms.amount,
    asset: getAddress(terms.asset),
    payTo: getAddress(terms.payTo),
    maxTimeoutSeconds: DEMO_PAYMENT.maxTimeoutSeconds,
    extra: { ...DEMO_PAYMENT.asset.eip712 },
  } satisfies PaymentRequirements;
}

/**
 * The token as the catalog and purchases describe it.
 * @example toAssetTerms(config.usdcAddress) // { symbol: 'USDC', address: '0x036C…', decimals: 6 }
 */
export function toAssetTerms(address: string) {
  return { symbol: DEMO_PAYMENT.asset.symbol, address: getAddress(address), decimals: DEMO_PAYMENT.asset.decimals };
}
