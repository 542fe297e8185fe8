import { describe, expect, it } from 'vitest';
import type { Purchase } from '../../../../api/purchase/schemas.ts';
import { describeStatus, toPurchaseFacts, toPurchaseId } from './view.ts';

const purchase = {
  service_name: 'Web search (demo)',
  simulated: true,
  params: { query_id: 'x402-facilitators', max_results: 5 },
  amount: { decimal: '0.003', atomic: '3000' },
  asset: { symbol: 'USDC', address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 },
  pay_to: '0x00000000000000000000000000000000000Fee01',
  network: 'eip155:84532',
  network_label: 'Base Sepolia (testnet)',
  expires_at: '2026-11-01T12:05:00.000Z',
} as unknown as Purchase;

describe('the approval page view', () => {
  it('lists the service, parameters, exact amount, recipient, network and token', () => {
    expect(toPurchaseFacts(purchase)).toEqual([
      { label: 'Service', value: 'Web search (demo) (simulated: prepared output)' },
      { label: 'Parameters', value: 'query_id = x402-facilitators, max_results = 5' },
      { label: 'Amount', value: '0.003 USDC (3000 atomic units)' },
      { label: 'Recipient (a test address this index is configured with)', value: '0x00000000000000000000000000000000000Fee01' },
      { label: 'Network', value: 'Base Sepolia (testnet), eip155:84532' },
      { label: 'Token', value: 'USDC at 0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
      { label: 'Approve before', value: '2026-11-01 12:05 UTC' },
    ]);
  });

  it('says each state in words, with the reason of a failure', () => {
    expect(describeStatus({ status: 'failed', reason: 'The payment did not go through: x.' })).toBe('Not paid. The payment did not go through: x.');
    for (const status of ['awaiting_approval', 'settling', 'completed', 'expired'] as const) {
      expect(describeStatus({ status, reason: null }).length).toBeGreaterThan(10);
    }
  });

  it('reads the purchase id from the address', () => {
    expect(toPurchaseId('/purchase/pur_Ab-9_x')).toBe('pur_Ab-9_x');
    expect(toPurchaseId('/purchase/pur_x/')).toBe('pur_x');
    expect(toPurchaseId('/purchase/')).toBeNull();
    expect(toPurchaseId('/purchase/a/b')).toBeNull();
  });
});
