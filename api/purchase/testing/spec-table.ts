/**
 * Test support: the spec's table of the 11 demo services ("Purchase-preview catalog and demo services"), restated
 * independently of the definitions so the tests check the definitions against the spec.
 */
export interface SpecParam {
  name: string;
  values: (string | number)[];
  required: boolean;
  default?: string | number;
}

export interface SpecService {
  id: string;
  path: string;
  params: SpecParam[];
  decimal: string;
  atomic: string;
  fields: string[];
}

const required = (name: string, values: (string | number)[]): SpecParam => ({ name, values, required: true });
const optional = (name: string, values: (string | number)[], fallback: string | number): SpecParam => ({
  name, values, required: false, default: fallback,
});

export const SPEC_SERVICES: SpecService[] = [
  { id: 'index-demo-market-data', path: '/api/demo/market', params: [required('asset', ['BTC', 'ETH'])], decimal: '0.01', atomic: '10000',
    fields: ['asset', 'price_usd', 'change_24h_pct', 'as_of', 'source'] },
  { id: 'index-demo-wallet-briefing', path: '/api/demo/services/wallet-briefing',
    params: [required('sample_wallet', ['demo-active', 'demo-dormant', 'demo-treasury']), optional('period', ['7d', '30d'], '7d')],
    decimal: '0.003', atomic: '3000', fields: ['wallet', 'period', 'balances', 'activity', 'positions'] },
  { id: 'index-demo-contract-screening', path: '/api/demo/services/contract-screening',
    params: [required('token_id', ['sample-usdc-base', 'sample-meme-token', 'sample-lp-token'])], decimal: '0.005', atomic: '5000',
    fields: ['token', 'checks', 'findings', 'verdict'] },
  { id: 'index-demo-web-search', path: '/api/demo/services/web-search',
    params: [required('query_id', ['x402-facilitators', 'base-sepolia-faucet', 'eip-3009-authorizations']), optional('max_results', [3, 5], 5)],
    decimal: '0.003', atomic: '3000', fields: ['query_id', 'query', 'result_count', 'results', 'answer', 'note'] },
  { id: 'index-demo-whitepaper-extraction', path: '/api/demo/services/whitepaper-extraction',
    params: [required('document_id', ['sample-lending-protocol', 'sample-stablecoin']), optional('section', ['summary', 'tokenomics', 'risks'], 'summary')],
    decimal: '0.005', atomic: '5000', fields: ['document', 'section', 'key_points', 'figures', 'quotes'] },
  { id: 'index-demo-specialist-research', path: '/api/demo/services/specialist-research',
    params: [required('topic_id', ['stablecoin-settlement-latency', 'agent-payment-rails', 'testnet-facilitators']), optional('depth', ['brief', 'standard'], 'standard')],
    decimal: '0.02', atomic: '20000', fields: ['topic', 'depth', 'findings', 'what_this_means', 'open_questions', 'confidence', 'method'] },
  { id: 'index-demo-image-creation', path: '/api/demo/services/image-creation',
    params: [required('brief_id', ['launch-poster', 'product-icon', 'social-card']), optional('style', ['flat', 'outline'], 'flat')],
    decimal: '0.02', atomic: '20000',
    fields: ['asset_url', 'width', 'height', 'format', 'alt_text', 'palette', 'brief', 'variant', 'style_notes', 'style_note'] },
  { id: 'index-demo-audio-transcription', path: '/api/demo/services/audio-transcription',
    params: [required('clip_id', ['standup-2026-09-14', 'customer-call-excerpt', 'podcast-intro']), optional('format', ['segments', 'text'], 'segments')],
    decimal: '0.01', atomic: '10000', fields: ['clip', 'format', 'segments', 'transcript', 'action_items'] },
  { id: 'index-demo-product-search', path: '/api/demo/services/product-search',
    params: [required('query_id', ['usb-c-hub', 'standing-desk', 'noise-cancelling-headphones']), optional('max_eur', [50, 150, 400], 400)],
    decimal: '0.003', atomic: '3000', fields: ['query', 'filters', 'products', 'best_value'] },
  { id: 'index-demo-job-search', path: '/api/demo/services/job-search',
    params: [required('role_id', ['solidity-engineer', 'developer-advocate', 'product-designer']), optional('region', ['eu', 'us', 'remote'], 'remote')],
    decimal: '0.003', atomic: '3000', fields: ['role', 'region', 'listings', 'market_note'] },
  { id: 'index-demo-website-performance', path: '/api/demo/services/website-performance',
    params: [required('page_id', ['sample-landing', 'sample-checkout', 'sample-docs']), optional('device', ['mobile', 'desktop'], 'mobile')],
    decimal: '0.005', atomic: '5000',
    fields: ['page', 'device', 'score', 'metrics', 'thresholds', 'checks', 'opportunities'] },
];

/**
 * Every combination of a service's parameter values.
 * @example toCombinations(SPEC_SERVICES[0]) // [{ asset: 'BTC' }, { asset: 'ETH' }]
 */
export function toCombinations(service: SpecService): Record<string, string | number>[] {
  return service.params.reduce<Record<string, string | number>[]>(
    (combos, param) => combos.flatMap((combo) => param.values.map((value) => ({ ...combo, [param.name]: value }))),
    [{}],
  );
}
