import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

type Period = '7d' | '30d';
interface Activity {
  transactions: number;
  inflow_usdc: number;
  outflow_usdc: number;
  notable: string[];
}
interface SampleWallet {
  label: string;
  address: string;
  balances: { asset: string; amount: number; chain: string }[];
  positions: { protocol: string; kind: string; value_usdc: number; note: string }[];
  activity: Record<Period, Activity>;
}

const WALLETS: Record<'demo-active' | 'demo-dormant' | 'demo-treasury', SampleWallet> = {
  'demo-active': {
    label: 'Active trader (sample)',
    address: '0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c',
    balances: [
      { asset: 'USDC', amount: 4_210.55, chain: 'base' },
      { asset: 'ETH', amount: 1.84, chain: 'base' },
      { asset: 'USDC', amount: 820, chain: 'arbitrum' },
    ],
    positions: [
      { protocol: 'Aave v3', kind: 'lending', value_usdc: 2_500, note: 'USDC supplied at a variable rate' },
      { protocol: 'Uniswap v3', kind: 'liquidity', value_usdc: 1_140.2, note: 'ETH/USDC range position, currently in range' },
    ],
    activity: {
      '7d': { transactions: 46, inflow_usdc: 3_900, outflow_usdc: 3_420.75, notable: ['Bridged 800 USDC from Base to Arbitrum', 'Opened a Uniswap v3 ETH/USDC range'] },
      '30d': {
        transactions: 188,
        inflow_usdc: 15_320.4,
        outflow_usdc: 14_010.9,
        notable: ['Bridged 800 USDC from Base to Arbitrum', 'Opened a Uniswap v3 ETH/USDC range', 'Supplied 2,500 USDC to Aave v3', 'Paid 31 x402 API calls'],
      },
    },
  },
  'demo-dormant': {
    label: 'Dormant holder (sample)',
    address: '0x9c3f0e2d8a1b4c5e6d7f8091a2b3c4d5e6f70819',
    balances: [{ asset: 'ETH', amount: 0.42, chain: 'ethereum' }, { asset: 'USDC', amount: 12.5, chain: 'base' }],
    positions: [],
    activity: {
      '7d': { transactions: 0, inflow_usdc: 0, outflow_usdc: 0, notable: [] },
      '30d': { transactions: 1, inflow_usdc: 12.5, outflow_usdc: 0, notable: ['Received 12.50 USDC (an airdrop claim)'] },
    },
  },
  'demo-treasury': {
    label: 'DAO treasury (sample)',
    address: '0x1f2e3d4c5b6a79880a9b8c7d6e5f4a3b2c1d0e9f',
    balances: [
      { asset: 'USDC', amount: 1_250_000, chain: 'base' },
      { asset: 'EURC', amount: 180_000, chain: 'base' },
      { asset: 'ETH', amount: 310, chain: 'ethereum' },
    ],
    positions: [
      { protocol: 'Morpho', kind: 'lending', value_usdc: 600_000, note: 'USDC vault, withdrawable at any time' },
      { protocol: 'Safe', kind: 'multisig', value_usdc: 0, note: '4-of-7 signers; this briefing reads balances only' },
    ],
    activity: {
      '7d': { transactions: 3, inflow_usdc: 0, outflow_usdc: 42_000, notable: ['Paid 3 contributor grants (42,000 USDC)'] },
      '30d': {
        transactions: 14,
        inflow_usdc: 250_000,
        outflow_usdc: 131_500,
        notable: ['Received 250,000 USDC of protocol revenue', 'Moved 600,000 USDC into a Morpho vault', 'Paid 11 contributor grants'],
      },
    },
  },
};

/** Prepared briefings of three sample wallets over 7 or 30 days. */
export const walletBriefing = defineDemoService({
  id: 'index-demo-wallet-briefing',
  name: 'Wallet briefing (demo)',
  description: 'Balances, recent activity and DeFi positions of a sample wallet. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/wallet-briefing',
  price: '0.003',
  query: demoQuery({
    sample_wallet: oneOf(['demo-active', 'demo-dormant', 'demo-treasury'], {
      description: 'Which sample wallet to brief.', example: 'demo-active',
    }),
    period: oneOf(['7d', '30d'], { description: 'The activity window.', example: '30d', default: '7d' }),
  }),
  returns: {
    wallet: '{label, address}',
    period: 'string: 7d or 30d',
    balances: '[{asset, amount, chain}]',
    activity: '{transactions, inflow_usdc, outflow_usdc, notable[]}',
    positions: '[{protocol, kind, value_usdc, note}]',
  },
  examplePrompts: ['Brief me on the demo treasury wallet over the last 30 days.', 'What has the active sample wallet done this week?'],
  respond: ({ sample_wallet, period }) => {
    const wallet = WALLETS[sample_wallet];
    return {
      wallet: { label: wallet.label, address: wallet.address },
      period,
      balances: wallet.balances,
      activity: wallet.activity[period],
      positions: wallet.positions,
    };
  },
});
