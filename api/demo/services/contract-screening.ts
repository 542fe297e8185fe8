import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

type Level = 'low' | 'medium' | 'high';
interface Screening {
  token: { label: string; symbol: string; address: string; chain: string };
  checks: Record<
    'verified_source' | 'ownership' | 'upgradeable' | 'mint_authority' | 'transfer_restrictions' | 'liquidity_lock' | 'holder_concentration',
    string
  >;
  findings: { severity: 'info' | Level; finding: string }[];
  verdict: { risk: Level; note: string };
}

const SCREENINGS: Record<'sample-usdc-base' | 'sample-meme-token' | 'sample-lp-token', Screening> = {
  'sample-usdc-base': {
    token: { label: 'USD Coin on Base (sample)', symbol: 'USDC', address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', chain: 'base' },
    checks: {
      verified_source: 'verified (proxy and implementation)',
      ownership: 'issuer-controlled admin and master minter',
      upgradeable: 'yes: transparent proxy administered by the issuer',
      mint_authority: 'issuer-controlled minters with allowances',
      transfer_restrictions: 'blacklist can freeze addresses; pausable',
      liquidity_lock: 'not applicable: redeemable with the issuer',
      holder_concentration: 'top 10 holders hold 38% (exchanges and bridges)',
    },
    findings: [
      { severity: 'info', finding: 'Upgradeable by the issuer: behaviour can change without holder consent.' },
      { severity: 'low', finding: 'The issuer can freeze any address; expected for a regulated stablecoin.' },
    ],
    verdict: { risk: 'low', note: 'A regulated, fully reserved stablecoin; the central controls are by design.' },
  },
  'sample-meme-token': {
    token: { label: 'Frog Rocket (sample)', symbol: 'FRGR', address: '0x7d3e5a1c9b2f48e06a1d3c5b7e9f0a2c4e6b8d01', chain: 'base' },
    checks: {
      verified_source: 'not verified',
      ownership: 'owner not renounced (an EOA)',
      upgradeable: 'no',
      mint_authority: 'owner can mint without a cap',
      transfer_restrictions: 'owner-set sell tax up to 25%; trading can be disabled',
      liquidity_lock: 'none: the deployer holds the LP tokens',
      holder_concentration: 'top 10 holders hold 81%; deployer 34%',
    },
    findings: [
      { severity: 'high', finding: 'Unlimited owner mint: supply can be inflated at will.' },
      { severity: 'high', finding: 'Liquidity is not locked: the deployer can withdraw it (rug pull risk).' },
      { severity: 'medium', finding: 'Owner can raise the sell tax to 25% and disable trading.' },
      { severity: 'medium', finding: 'Source is not verified, so the bytecode cannot be reviewed easily.' },
    ],
    verdict: { risk: 'high', note: 'Several owner powers allow draining holders; avoid.' },
  },
  'sample-lp-token': {
    token: { label: 'WETH/USDC pool share (sample)', symbol: 'WETH-USDC-LP', address: '0x4c36388be6f416a29c8d8eee81c771ce6be14b18', chain: 'base' },
    checks: {
      verified_source: 'verified',
      ownership: 'no owner: pool factory contract',
      upgradeable: 'no',
      mint_authority: 'minted only against deposited liquidity',
      transfer_restrictions: 'none',
      liquidity_lock: '62% of shares locked for 12 months',
      holder_concentration: 'top 10 holders hold 71% of shares',
    },
    findings: [
      { severity: 'info', finding: 'Standard pool contract from a widely used factory.' },
      { severity: 'medium', finding: 'Concentrated holders: a few exits would thin liquidity noticeably.' },
      { severity: 'low', finding: 'Impermanent loss applies to holders when the ETH price moves.' },
    ],
    verdict: { risk: 'medium', note: 'Sound contract; the risks are market and concentration, not code.' },
  },
};

/** Prepared security screenings of three sample tokens. */
export const contractScreening = defineDemoService({
  id: 'index-demo-contract-screening',
  name: 'Contract screening (demo)',
  description: 'A security screening of a sample token contract: checks, findings and a risk verdict. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/contract-screening',
  price: '0.005',
  query: demoQuery({
    token_id: oneOf(['sample-usdc-base', 'sample-meme-token', 'sample-lp-token'], {
      description: 'Which sample token to screen.', example: 'sample-meme-token',
    }),
  }),
  returns: {
    token: '{label, symbol, address, chain}',
    checks: '{verified_source, ownership, upgradeable, mint_authority, transfer_restrictions, liquidity_lock, holder_concentration}',
    findings: '[{severity: info, low, medium or high; finding}]',
    verdict: '{risk: low, medium or high; note}',
  },
  examplePrompts: ['Is the sample meme token safe to buy?', 'Screen the sample LP token for contract risks.'],
  respond: ({ token_id }) => SCREENINGS[token_id],
});
