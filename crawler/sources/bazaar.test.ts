import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UNKNOWN_PRICE } from '../normalize.ts';
import { parse } from './bazaar.ts';

const PAGE_URL = 'https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources';
const FACILITATOR = 'https://api.cdp.coinbase.com/platform/v2/x402';
const fixture: unknown = JSON.parse(readFileSync(new URL('./fixtures/bazaar-resources.excerpt.json', import.meta.url), 'utf8'));

describe('bazaar.ts on a real CDP page excerpt (v1 items)', () => {
  const { endpoints, skipped } = parse(fixture, PAGE_URL);

  it('reads one endpoint per item', () => {
    expect(skipped).toBe(0);
    expect(endpoints.map((e) => [e.method, e.url])).toEqual([
      ['POST', 'https://api-dev.intra-tls2.dctx.link/x402/swarm/qrn:swarm:68fa0ad0c87f09b65914cfe8'],
      ['GET', 'https://run.x420.dev/api/puff'],
      ['POST', 'https://api.questflow.ai/x402/swarm/qrn:swarm:68fafe670ebd74a7913a8091'],
      ['GET', 'https://blocksearch.dev/api/transfers'],
    ]);
    expect(endpoints.every((e) => e.source === 'bazaar' && e.rails.join() === 'x402' && e.facilitator === FACILITATOR)).toBe(true);
  });

  it.each([
    [0, ['base-sepolia'], ['USDC'], { usd: 0.5, display: '$0.5 / call' }],
    [1, ['base'], ['USDC'], { usd: 1, display: '$1 / call' }],
    [2, ['base'], ['0xf33CAC2bB6B26e7615B1873c84e4174Ae193A9aa'], UNKNOWN_PRICE],
    [3, ['solana'], ['USDC'], { usd: 0.01, display: '$0.01 / call' }],
  ])('item %i: chains %j, assets %j', (index, chains, assets, price) => {
    const endpoint = endpoints[index];
    expect(endpoint?.chains).toEqual(chains);
    expect(endpoint?.assets).toEqual(assets);
    expect(endpoint?.price).toEqual(price);
  });

  it('takes the endpoint description from the offer', () => {
    expect(endpoints[0]?.description).toBe('Personal use | Powered by Questflow');
    expect(endpoints[0]?.source_url).toBe(PAGE_URL);
  });

  it('has no facilitator when the page URL is not a discovery URL', () => {
    expect(parse(fixture, null).endpoints[0]?.facilitator).toBeNull();
    expect(parse(fixture, 'https://example.com/x').endpoints[0]?.facilitator).toBeNull();
    expect(parse(fixture, `${PAGE_URL}?limit=100&offset=0`).endpoints[0]?.facilitator).toBe(FACILITATOR);
  });
});

describe('bazaar.ts on v2-shaped and mixed items', () => {
  const v2Item = {
    resource: 'https://api.demo.test/quote',
    type: 'http',
    x402Version: 2,
    lastUpdated: 1767225600,
    serviceName: 'Demo quotes',
    extensions: { bazaar: { info: { input: { type: 'http', method: 'post' } } } },
    accepts: [
      { scheme: 'exact', network: 'eip155:8453', amount: '20000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
      { scheme: 'exact', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', amount: '5000', asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      { scheme: 'upto', network: 'base_sepolia', maxAmountRequired: '1', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
    ],
  };

  it('reads CAIP-2 networks, v2 amounts, the bazaar extension method and picks the cheapest fixed USD offer', () => {
    const { endpoints, skipped } = parse({ x402Version: 2, items: [v2Item] }, PAGE_URL);
    expect(skipped).toBe(0);
    expect(endpoints[0]).toMatchObject({
      url: 'https://api.demo.test/quote',
      method: 'POST',
      service_name: 'Demo quotes',
      chains: ['base', 'base-sepolia', 'solana'],
      assets: ['USDC'],
      price: { usd: 0.005, display: '$0.005 / call' },
    });
  });

  it('accepts a resource object and an ISO lastUpdated', () => {
    const item = { ...v2Item, resource: { url: 'https://api.demo.test/r', description: 'Quotes' }, lastUpdated: '2026-04-22T10:00:00Z' };
    const { endpoints } = parse({ items: [item] }, PAGE_URL);
    expect(endpoints[0]?.url).toBe('https://api.demo.test/r');
  });
});

describe('bazaar.ts on malformed input', () => {
  it.each([[null], [[]], [{}], [{ items: {} }], [42]])('counts a document of the wrong shape (%j)', (json) => {
    expect(parse(json, PAGE_URL)).toEqual({ endpoints: [], skipped: 1 });
  });

  it('skips and counts malformed items, leaves out non-HTTP ones', () => {
    const good = { resource: 'https://ok.example/a', accepts: [{ scheme: 'exact', network: 'base', asset: '0xabc', maxAmountRequired: 'lots' }] };
    const json = {
      items: [
        null,
        'https://text.example',
        { resource: 'not a url', accepts: good.accepts },
        { resource: 'https://no-accepts.example' },
        { resource: 'https://empty.example', accepts: [] },
        { resource: 'https://bad-accepts.example', accepts: [null, { network: 7 }, { network: 'base' }] },
        { type: 'mcp', resource: 'mcp://tool', accepts: good.accepts },
        good,
      ],
    };
    const { endpoints, skipped } = parse(json, PAGE_URL);
    expect(skipped).toBe(6);
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ url: 'https://ok.example/a', method: null, assets: ['0xabc'], price: UNKNOWN_PRICE });
  });
});
