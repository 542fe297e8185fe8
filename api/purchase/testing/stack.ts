import type { Config } from '../../config.ts';
import { startLocalChain, type LocalChain } from './chain.ts';
import { startLocalFacilitator, type LocalFacilitator } from './facilitator.ts';

/** Receives the demo-service payments in tests. */
export const TEST_PAY_TO = '0x00000000000000000000000000000000000Fee01';

export interface PaymentStack {
  chain: LocalChain;
  facilitator: LocalFacilitator;
  /** Config overrides pointing the app at the local chain's token and the local facilitator. */
  config: Pick<Config, 'facilitatorUrl' | 'usdcAddress' | 'payToAddress'>;
  close: () => Promise<void>;
}

/**
 * The whole payment side of a test: a local chain with the test token, and a local x402 facilitator on it.
 * @example const stack = await startPaymentStack(); const { request } = createTestApp([], { config: stack.config });
 */
export async function startPaymentStack(): Promise<PaymentStack> {
  const chain = await startLocalChain();
  const facilitator = await startLocalFacilitator(chain);
  return {
    chain,
    facilitator,
    config: { facilitatorUrl: facilitator.url, usdcAddress: chain.usdc, payToAddress: TEST_PAY_TO },
    close: facilitator.close,
  };
}
