import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

type Section = 'summary' | 'tokenomics' | 'risks';
interface Extract {
  key_points: string[];
  figures: Record<string, string | number>;
  quotes: { text: string; section: string }[];
}
interface Whitepaper {
  title: string;
  sections: Record<Section, Extract>;
}

const WHITEPAPERS: Record<'sample-lending-protocol' | 'sample-stablecoin', Whitepaper> = {
  'sample-lending-protocol': {
    title: 'Lendwell: over-collateralised lending for stablecoins (sample whitepaper)',
    sections: {
      summary: {
        key_points: [
          'Pooled lending markets: suppliers earn interest, borrowers post collateral worth more than the loan.',
          'Interest rates follow pool utilisation on a two-slope curve.',
          'Loans below the liquidation threshold are liquidated by anyone, for a bonus.',
        ],
        figures: { markets_at_launch: 6, max_loan_to_value_pct: 80, liquidation_bonus_pct: 5 },
        quotes: [{ text: 'No loan is ever worth more than the collateral that secures it.', section: '1. Overview' }],
      },
      tokenomics: {
        key_points: [
          'LEND is the governance token; it does not earn protocol fees directly.',
          '40% of supply goes to users over four years; 20% to the team with a one-year cliff.',
          'A 10% reserve factor on interest funds a safety module.',
        ],
        figures: { total_supply: 100_000_000, community_share_pct: 40, team_share_pct: 20, reserve_factor_pct: 10 },
        quotes: [{ text: 'Team tokens vest over four years after a twelve-month cliff.', section: '4. Token distribution' }],
      },
      risks: {
        key_points: [
          'Oracle failure can trigger wrong liquidations; prices come from two independent feeds.',
          'Governance can change risk parameters after a 48-hour timelock.',
          'A collateral asset that loses liquidity can leave bad debt.',
        ],
        figures: { timelock_hours: 48, oracle_feeds: 2, audits_completed: 3 },
        quotes: [{ text: 'Bad debt is covered first by the safety module, then socialised across suppliers.', section: '6. Risk' }],
      },
    },
  },
  'sample-stablecoin': {
    title: 'Steadi: a fully reserved euro stablecoin (sample whitepaper)',
    sections: {
      summary: {
        key_points: [
          'One STDI is redeemable for one euro held in segregated bank accounts and short-term bills.',
          'Minting and redemption are open to verified institutions; anyone may hold and transfer.',
          'Monthly attestations by an independent accounting firm.',
        ],
        figures: { peg: '1 STDI = 1 EUR', attestation_interval_days: 30, redemption_fee_pct: 0.1 },
        quotes: [{ text: 'Every token in circulation is matched by a euro in reserve.', section: '1. Introduction' }],
      },
      tokenomics: {
        key_points: [
          'Supply changes only with minting and redemption; there is no governance token.',
          'Reserve income pays operations; holders receive no yield.',
          'Issued on Base and Ethereum with a canonical bridge.',
        ],
        figures: { reserve_cash_pct: 20, reserve_bills_pct: 80, chains: 2 },
        quotes: [{ text: 'Holders bear no interest-rate risk and receive no interest.', section: '3. Reserves' }],
      },
      risks: {
        key_points: [
          'A bank failure could delay redemptions for the part held in cash.',
          'The issuer can freeze addresses to comply with sanctions.',
          'The canonical bridge is a single point of failure for the Base supply.',
        ],
        figures: { banking_partners: 3, freeze_capability: 'yes', bridge_security_council_signers: 5 },
        quotes: [{ text: 'The issuer may freeze tokens where the law requires it.', section: '5. Compliance' }],
      },
    },
  },
};

/** Prepared extractions from two sample whitepapers, one section at a time. */
export const whitepaperExtraction = defineDemoService({
  id: 'index-demo-whitepaper-extraction',
  name: 'Whitepaper extraction (demo)',
  description: 'Key points, figures and quotes from one section of a sample whitepaper. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/whitepaper-extraction',
  price: '0.005',
  query: demoQuery({
    document_id: oneOf(['sample-lending-protocol', 'sample-stablecoin'], {
      description: 'Which sample whitepaper to read.', example: 'sample-stablecoin',
    }),
    section: oneOf(['summary', 'tokenomics', 'risks'], { description: 'Which part to extract.', example: 'risks', default: 'summary' }),
  }),
  returns: {
    document: '{id, title}',
    section: 'string: summary, tokenomics or risks',
    key_points: 'array of string',
    figures: 'map of figure name to value',
    quotes: '[{text, section}]',
  },
  examplePrompts: ['Summarise the sample stablecoin whitepaper.', 'What are the risks in the sample lending protocol whitepaper?'],
  respond: ({ document_id, section }) => {
    const paper = WHITEPAPERS[document_id];
    return { document: { id: document_id, title: paper.title }, section, ...paper.sections[section] };
  },
});
