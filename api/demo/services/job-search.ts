import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

type Region = 'eu' | 'us' | 'remote';
/** [title, company, location, remote, salary_range, posted_on] */
type Row = [string, string, string, boolean, string, string];
interface Role {
  role: string;
  requirements: string[];
  listings: Record<Region, Row[]>;
  market_note: Record<Region, string>;
}

const ROLES: Record<'solidity-engineer' | 'developer-advocate' | 'product-designer', Role> = {
  'solidity-engineer': {
    role: 'Solidity engineer',
    requirements: ['3+ years of Solidity in production', 'Foundry or Hardhat testing', 'Audit experience or findings'],
    listings: {
      eu: [
        ['Senior Solidity Engineer', 'Ledgerline', 'Berlin, Germany', false, '€95,000-120,000', '2026-09-08'],
        ['Smart Contract Engineer', 'Nordvault', 'Lisbon, Portugal (hybrid)', false, '€80,000-100,000', '2026-09-11'],
      ],
      us: [
        ['Staff Protocol Engineer', 'Coinspan', 'New York, NY', false, '$190,000-240,000', '2026-09-05'],
        ['Solidity Engineer, Payments', 'Railbank', 'San Francisco, CA (hybrid)', false, '$170,000-210,000', '2026-09-12'],
      ],
      remote: [
        ['Solidity Engineer (remote)', 'Opensettle', 'Remote, UTC-3 to UTC+3', true, '$130,000-170,000', '2026-09-10'],
        ['Protocol Engineer, stablecoins', 'Mintwise', 'Remote, worldwide', true, '$120,000-160,000 + tokens', '2026-09-13'],
      ],
    },
    market_note: {
      eu: 'EU demand is steady; hybrid roles in Berlin and Lisbon dominate, salaries trail the US by about 40%.',
      us: 'US roles pay the most but mostly require on-site days in New York or San Francisco.',
      remote: 'Remote roles are plentiful but competitive; audit findings on your CV stand out.',
    },
  },
  'developer-advocate': {
    role: 'Developer advocate',
    requirements: ['Public writing or talks on developer tools', 'Hands-on coding in TypeScript', 'Community building'],
    listings: {
      eu: [['Developer Advocate, Europe', 'Paystack Labs', 'Amsterdam, Netherlands', false, '€70,000-90,000', '2026-09-09']],
      us: [
        ['Senior Developer Advocate', 'Coinspan', 'Remote within the US', true, '$150,000-185,000', '2026-09-07'],
        ['Developer Relations Engineer', 'Agentic Inc.', 'Austin, TX', false, '$140,000-170,000', '2026-09-12'],
      ],
      remote: [
        ['Developer Advocate, x402', 'Opensettle', 'Remote, worldwide', true, '$110,000-140,000', '2026-09-11'],
        ['Community Engineer', 'Mintwise', 'Remote, Europe time zones', true, '€65,000-85,000', '2026-09-14'],
      ],
    },
    market_note: {
      eu: 'Few EU openings; most DevRel teams hire remotely instead.',
      us: 'US DevRel roles increasingly ask for agent and AI tooling experience.',
      remote: 'Remote DevRel roles favour candidates with an existing audience.',
    },
  },
  'product-designer': {
    role: 'Product designer',
    requirements: ['Portfolio of shipped product work', 'Figma', 'Experience designing payment or wallet flows'],
    listings: {
      eu: [
        ['Product Designer, Wallet', 'Nordvault', 'Stockholm, Sweden', false, '€65,000-80,000', '2026-09-06'],
        ['Senior Product Designer', 'Ledgerline', 'Berlin, Germany (hybrid)', false, '€75,000-95,000', '2026-09-13'],
      ],
      us: [['Product Designer, Checkout', 'Railbank', 'Seattle, WA', false, '$145,000-175,000', '2026-09-10']],
      remote: [
        ['Product Designer (contract)', 'Agentic Inc.', 'Remote, Americas', true, '$80-110 per hour', '2026-09-12'],
        ['Product Designer, Payments', 'Opensettle', 'Remote, worldwide', true, '$100,000-130,000', '2026-09-14'],
      ],
    },
    market_note: {
      eu: 'Wallet and onboarding design is the most asked-for specialism in the EU.',
      us: 'US roles concentrate on checkout conversion; fewer openings than last quarter.',
      remote: 'Remote design work skews to contracts; permanent remote roles are rarer.',
    },
  },
};

/** Prepared job listings for three roles in three regions. */
export const jobSearch = defineDemoService({
  id: 'index-demo-job-search',
  name: 'Job search (demo)',
  description: 'Current job listings for a role in a region, with a market note. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/job-search',
  price: '0.003',
  query: demoQuery({
    role_id: oneOf(['solidity-engineer', 'developer-advocate', 'product-designer'], {
      description: 'Which role to search for.', example: 'developer-advocate',
    }),
    region: oneOf(['eu', 'us', 'remote'], { description: 'Where the job is.', example: 'eu', default: 'remote' }),
  }),
  returns: {
    role: 'string',
    region: 'string: eu, us or remote',
    listings: '[{title, company, location, remote, salary_range, posted_on, requirements, apply_note}]',
    market_note: 'string',
  },
  examplePrompts: ['Find remote Solidity engineer jobs.', 'What developer advocate roles are open in the US?'],
  respond: ({ role_id, region }) => {
    const role = ROLES[role_id];
    const listings = role.listings[region].map(([title, company, location, remote, salary_range, posted_on]) => ({
      title,
      company,
      location,
      remote,
      salary_range,
      posted_on,
      requirements: role.requirements,
      apply_note: `Sample listing: apply on ${company}'s careers page, quoting "${title}".`,
    }));
    return { role: role.role, region, listings, market_note: role.market_note[region] };
  },
});
