import { getAddress } from 'viem';
import type { PurchaseRecord } from '../../data/purchases.ts';
import { findDemoService } from '../demo/registry.ts';
import { DEMO_PAYMENT, toAssetTerms, toRequirements } from '../demo/terms.ts';
import { toPriceDisplay } from './catalog.ts';
import type { Purchase } from './schemas.ts';

/**
 * A purchase as the agent and the approval page see it. Never the signature, nor the authorization or its nonce.
 * @example return toPurchaseView(getPurchase(db, id, now), 'https://staging.example');
 */
export function toPurchaseView(record: PurchaseRecord, stagingUrl: string): Purchase {
  const service = findDemoService(record.service_id);
  if (!service) throw new Error(`purchase ${record.id} names an unknown service ${record.service_id}`);
  const decimal = toDecimal(record.amount_atomic);
  return {
    id: record.id,
    status: record.status,
    reason: record.reason,
    service_id: service.id,
    service_name: service.name,
    simulated: service.simulated,
    params: record.params,
    amount: { decimal, atomic: record.amount_atomic },
    price_display: toPriceDisplay(decimal),
    pay_to: getAddress(record.pay_to),
    network: record.network,
    network_label: DEMO_PAYMENT.networkLabel,
    asset: toAssetTerms(record.asset),
    payment_requirements: toRequirements({ amount: record.amount_atomic, asset: record.asset, payTo: record.pay_to }),
    approve_url: `${stagingUrl}/purchase/${record.id}`,
    expires_at: record.expires_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
    payer: record.payer,
    transaction: record.transaction_hash,
    explorer_url: record.transaction_hash ? `${DEMO_PAYMENT.explorerTxUrl}${record.transaction_hash}` : null,
    response: record.response as Record<string, unknown> | null,
  };
}

/**
 * An atomic USDC amount as a decimal string, without trailing zeros.
 * @example toDecimal('3000') // '0.003'
 */
export function toDecimal(atomic: string): string {
  const digits = atomic.padStart(DEMO_PAYMENT.asset.decimals + 1, '0');
  const whole = digits.slice(0, -DEMO_PAYMENT.asset.decimals);
  const fraction = digits.slice(-DEMO_PAYMENT.asset.decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
