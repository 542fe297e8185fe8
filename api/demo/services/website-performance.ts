import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

type Device = 'mobile' | 'desktop';
interface Metrics {
  lcp_ms: number;
  cls: number;
  inp_ms: number;
  ttfb_ms: number;
  total_bytes_kb: number;
  requests: number;
}
interface Audit {
  label: string;
  url: string;
  runs: Record<Device, { score: number; metrics: Metrics }>;
  /** Savings measured on mobile; desktop saves less (a faster CPU and network). */
  opportunities: { title: string; estimated_savings_ms: number; fix: string }[];
}

/** Core Web Vitals "good" thresholds. */
const THRESHOLDS = { lcp_ms: 2500, cls: 0.1, inp_ms: 200 } as const;
const DESKTOP_SAVINGS_FACTOR = 0.4;

const AUDITS: Record<'sample-landing' | 'sample-checkout' | 'sample-docs', Audit> = {
  'sample-landing': {
    label: 'Marketing landing page (sample)',
    url: 'https://shop.example/',
    runs: {
      mobile: { score: 58, metrics: { lcp_ms: 4200, cls: 0.18, inp_ms: 240, ttfb_ms: 620, total_bytes_kb: 3150, requests: 96 } },
      desktop: { score: 81, metrics: { lcp_ms: 2100, cls: 0.12, inp_ms: 90, ttfb_ms: 310, total_bytes_kb: 3150, requests: 96 } },
    },
    opportunities: [
      { title: 'Serve the hero image as AVIF at its displayed size', estimated_savings_ms: 1400, fix: 'Resize the 2400 px hero to 1200 px and add an AVIF source.' },
      { title: 'Reserve space for the cookie banner', estimated_savings_ms: 0, fix: 'Give the banner a fixed-height placeholder so the layout does not shift.' },
      { title: 'Defer the chat widget', estimated_savings_ms: 650, fix: 'Load the widget after the first user interaction.' },
    ],
  },
  'sample-checkout': {
    label: 'Checkout page (sample)',
    url: 'https://shop.example/checkout',
    runs: {
      mobile: { score: 71, metrics: { lcp_ms: 2900, cls: 0.04, inp_ms: 380, ttfb_ms: 540, total_bytes_kb: 1720, requests: 61 } },
      desktop: { score: 93, metrics: { lcp_ms: 1500, cls: 0.03, inp_ms: 150, ttfb_ms: 280, total_bytes_kb: 1720, requests: 61 } },
    },
    opportunities: [
      { title: 'Split the payment SDK bundle', estimated_savings_ms: 900, fix: 'Load the wallet SDK only when the customer picks that method.' },
      { title: 'Debounce address validation', estimated_savings_ms: 300, fix: 'Validate on blur instead of on every keystroke.' },
    ],
  },
  'sample-docs': {
    label: 'Documentation page (sample)',
    url: 'https://docs.example/getting-started',
    runs: {
      mobile: { score: 92, metrics: { lcp_ms: 1900, cls: 0.02, inp_ms: 110, ttfb_ms: 180, total_bytes_kb: 420, requests: 18 } },
      desktop: { score: 99, metrics: { lcp_ms: 800, cls: 0.01, inp_ms: 40, ttfb_ms: 90, total_bytes_kb: 420, requests: 18 } },
    },
    opportunities: [{ title: 'Preload the body font', estimated_savings_ms: 200, fix: 'Add <link rel="preload"> for the WOFF2 file used above the fold.' }],
  },
};

const check = (value: number, threshold: number) => (value <= threshold ? 'pass' : 'fail');

/** Prepared performance audits of three sample pages on mobile or desktop. */
export const websitePerformance = defineDemoService({
  id: 'index-demo-website-performance',
  name: 'Website performance (demo)',
  description: 'A Core Web Vitals audit of a sample page on mobile or desktop, with fixes. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/website-performance',
  price: '0.005',
  query: demoQuery({
    page_id: oneOf(['sample-landing', 'sample-checkout', 'sample-docs'], {
      description: 'Which sample page to audit.', example: 'sample-checkout',
    }),
    device: oneOf(['mobile', 'desktop'], { description: 'The device profile.', example: 'desktop', default: 'mobile' }),
  }),
  returns: {
    page: '{id, label, url}',
    device: 'string: mobile or desktop',
    score: 'integer 0-100',
    metrics: '{lcp_ms, cls, inp_ms, ttfb_ms, total_bytes_kb, requests}',
    thresholds: '{lcp_ms, cls, inp_ms}',
    checks: '{lcp_ms, cls, inp_ms, overall}: each pass or fail',
    opportunities: '[{title, estimated_savings_ms, fix}]',
  },
  examplePrompts: ['How fast is the sample checkout page on mobile?', 'Audit the sample landing page on desktop.'],
  respond: ({ page_id, device }) => {
    const audit = AUDITS[page_id];
    const { score, metrics } = audit.runs[device];
    const vitals = {
      lcp_ms: check(metrics.lcp_ms, THRESHOLDS.lcp_ms),
      cls: check(metrics.cls, THRESHOLDS.cls),
      inp_ms: check(metrics.inp_ms, THRESHOLDS.inp_ms),
    };
    const factor = device === 'mobile' ? 1 : DESKTOP_SAVINGS_FACTOR;
    return {
      page: { id: page_id, label: audit.label, url: audit.url },
      device,
      score,
      metrics,
      thresholds: THRESHOLDS,
      checks: { ...vitals, overall: Object.values(vitals).every((result) => result === 'pass') ? 'pass' : 'fail' },
      opportunities: audit.opportunities.map((item) => ({ ...item, estimated_savings_ms: Math.round(item.estimated_savings_ms * factor) })),
    };
  },
});
