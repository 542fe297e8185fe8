import { describe, expect, it } from 'vitest';
import { toMppOffer, toX402Offers } from './offers.ts';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAY_TO = '0x1111111111111111111111111111111111111111';

describe('offers', () => {
  it('reads an x402 upto entry as a ceiling, and a v1 entry by its maxAmountRequired', () => {
    const [upto] = toX402Offers({ x402Version: 2, accepts: [{ scheme: 'upto', network: 'eip155:8453', amount: '50000', asset: BASE_USDC, payTo: PAY_TO }] });
    expect(upto).toMatchObject({ scheme: 'upto', chain: 'base', amount: { atomic: '50000', decimal: '0.05' }, usd: 0.05, is_maximum: true, unit: 'call' });
    const [v1] = toX402Offers({ x402Version: 1, accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '1500', asset: BASE_USDC, payTo: PAY_TO }] });
    expect(v1).toMatchObject({ network: 'base', chain: 'base', amount: { atomic: '1500', decimal: '0.0015' }, usd: 0.0015, is_maximum: false });
  });

  it('never guesses a price: an unknown asset keeps its amount without decimals or USD', () => {
    const [offer] = toX402Offers({ accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '7', asset: '0x2222222222222222222222222222222222222222', payTo: PAY_TO }] });
    expect(offer).toMatchObject({ asset: { address: '0x2222222222222222222222222222222222222222' }, amount: { atomic: '7', decimal: null }, usd: null });
  });

  it('reads an MPP session as a price per unit, its deposit no price, and a Stripe charge in cents', () => {
    const session = toMppOffer({ method: 'tempo', intent: 'session', request: {
      amount: '2', unitType: 'llm_token', suggestedDeposit: '10000000', currency: '0x20C000000000000000000000b9537d11c60E8b50', recipient: PAY_TO, methodDetails: { chainId: 4217 },
    } });
    expect(session).toMatchObject({ rail: 'mpp', scheme: 'session', method: 'tempo', chain: 'tempo', amount: { decimal: '0.000002' }, usd: 0.000002, unit: 'llm_token', is_maximum: false, pay_to: PAY_TO });
    const stripe = toMppOffer({ method: 'stripe', intent: 'charge', request: { amount: '150', currency: 'usd' } });
    expect(stripe).toMatchObject({ chain: null, asset: { symbol: 'USD', address: null }, amount: { decimal: '1.5' }, usd: 1.5, pay_to: null });
  });
});
