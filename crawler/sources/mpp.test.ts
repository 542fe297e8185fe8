import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FREE_PRICE, UNKNOWN_PRICE } from '../normalize.ts';
import { parse } from './mpp.ts';

const DIRECTORY_URL = 'https://mpp.dev/api/services';
const fixture: unknown = JSON.parse(readFileSync(new URL('./fixtures/mpp-services.excerpt.json', import.meta.url), 'utf8'));

describe('mpp.ts on a real mpp.dev excerpt', () => {
  const { endpoints, skipped } = parse(fixture, DIRECTORY_URL);
  const find = (url: string) => endpoints.find((e) => e.url === url);

  it('reads every endpoint of every service', () => {
    expect(skipped).toBe(0);
    expect(endpoints).toHaveLength(23);
    expect(endpoints.every((e) => e.source === 'mpp.dev' && e.rails.join() === 'mpp')).toBe(true);
  });

  it('turns a fixed tempo price into a USDC price per unit', () => {
    expect(find('https://api.apex-db.org/v1/apex')).toEqual({
      source: 'mpp.dev',
      source_url: 'https://mpp.dev/api/services?ids=apex-db',
      url: 'https://api.apex-db.org/v1/apex',
      method: 'GET',
      description: 'Search vehicle variants',
      service_name: 'Apex DB',
      service_category: 'data',
      service_description:
        'Search normalized vehicle variants, specifications, emissions, and source-linked provenance from public automotive datasets.',
      rails: ['mpp'],
      chains: ['tempo'],
      assets: ['USDC'],
      price: { usd: 0.1, display: '$0.1 / call' },
      facilitator: null,
      route_template: null,
      docs_url: 'https://apex-db.org/',
      tags: ['automotive', 'vehicles', 'emissions', 'specifications', 'provenance'],
      input: null,
      output: null,
      offers: [{
        rail: 'mpp', scheme: 'charge', method: 'tempo', network: 'eip155:4217', chain: 'tempo',
        asset: { symbol: 'USDC', address: '0x20c000000000000000000000b9537d11c60e8b50' },
        amount: { atomic: '100000', decimal: '0.1' }, usd: 0.1, unit: 'call', is_maximum: false, pay_to: null,
        facilitator: null, seen_in: 'mpp.dev',
      }],
    });
    // A path with :params is a route: its input names them.
    expect(find('https://api.apex-db.org/v1/apex/:id')).toMatchObject({
      route_template: '/v1/apex/:id',
      input: { path: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
      offers: [{ usd: 0.025, unit: 'record' }],
    });
    expect(find('https://api.apex-db.org/v1/apex/:id')?.price).toEqual({ usd: 0.025, display: '$0.025 / record' });
  });

  it.each([
    ['free endpoint', 'https://agents.martinestate.com/catalog', FREE_PRICE, [], []],
    ['dynamic tempo price, service also takes stripe', 'https://agents.martinestate.com/purchase', UNKNOWN_PRICE, ['tempo'], ['USD', 'USDC']],
    ['dynamic stripe price', 'https://agents.prospectbutcher.shop/buy/:slug', UNKNOWN_PRICE, [], ['USD']],
    ['fixed stripe price in cents', 'https://tako.com/api/mpp/v1/search/fast', { usd: 0.04, display: '$0.04 / call' }, [], ['USD']],
    ['fixed tempo price without unit', 'https://twocaptcha.mpp.tempo.xyz/createTask', { usd: 0.003, display: '$0.003 / call' }, ['tempo'], ['USDC']],
    ['serviceUrl with a path (gateway)', 'https://mpp.orthogonal.com/seltz/v1/search', { usd: 0.00625, display: '$0.00625 / call' }, ['tempo'], ['USDC']],
  ])('%s', (_case, url, price, chains, assets) => {
    const endpoint = find(url);
    expect(endpoint?.price).toEqual(price);
    expect(endpoint?.chains).toEqual(chains);
    expect(endpoint?.assets).toEqual(assets);
  });

  it('keeps each service name on its own endpoints', () => {
    expect(find('https://mpp.orthogonal.com/baseten/v1/chat/completions')?.service_name).toBe('Baseten Model APIs');
    expect(find('https://mpp.orthogonal.com/seltz/v1/search')?.service_name).toBe('Seltz');
  });

  it('has no listing URL without a directory URL', () => {
    expect(parse(fixture, null).endpoints[0]?.source_url).toBeNull();
  });
});

describe('mpp.ts on malformed input', () => {
  it.each([[null], [[]], ['{}'], [{}], [{ services: 'none' }], [{ version: 1 }]])('counts a document of the wrong shape (%j)', (json) => {
    expect(parse(json, DIRECTORY_URL)).toEqual({ endpoints: [], skipped: 1 });
  });

  it('skips and counts malformed services and endpoints, keeps the rest', () => {
    const json = {
      version: 1,
      services: [
        null,
        { id: 'no-url', endpoints: [] },
        { id: 'ftp', serviceUrl: 'ftp://files.example', endpoints: [] },
        { id: 'no-endpoints', serviceUrl: 'https://a.example' },
        {
          id: 'mixed',
          serviceUrl: 'https://b.example/',
          methods: 'tempo',
          endpoints: [
            null,
            { method: 'GET', path: 5 },
            { method: 'GET', path: '/paid', payment: 'yes' },
            { method: 'GET', path: '/no-currency', payment: { method: 'tempo', amount: '1' } },
            { method: 'get', path: 'free', payment: null },
            { path: '/bad-decimals', payment: { method: 'tempo', currency: '0x20c000000000000000000000b9537d11c60e8b50', amount: '1', decimals: '6' } },
            { method: 'POST', path: '/bad-amount', payment: { method: 'tempo', currency: '0x20c000000000000000000000b9537d11c60e8b50', amount: 1000, decimals: 6 } },
          ],
        },
      ],
    };
    const { endpoints, skipped } = parse(json, DIRECTORY_URL);
    expect(skipped).toBe(8); // 4 services + 4 endpoints
    expect(endpoints.map((e) => [e.method, e.url, e.price])).toEqual([
      ['GET', 'https://b.example/free', FREE_PRICE],
      [null, 'https://b.example/bad-decimals', UNKNOWN_PRICE],
      ['POST', 'https://b.example/bad-amount', UNKNOWN_PRICE],
    ]);
    expect(endpoints[0]?.service_name).toBeNull();
  });
});

describe('mpp.ts on hostile text', () => {
  it('cleans names, descriptions and categories as they enter: no control, bidi or XML-forbidden character', () => {
    const dirty = (text: string) => `\u202E${text}\u0000\u001b\u0085\uFFFE\uD800\r\n`;
    const json = {
      version: 1,
      services: [{
        id: 'dirty', serviceUrl: 'https://dirty.example/', name: dirty('Dirty Data'), description: dirty('Line one\r\nline two'),
        categories: [dirty('data')], methods: 'tempo',
        endpoints: [{ method: 'GET', path: '/q', description: dirty('Query'), payment: null }],
      }],
    };
    expect(parse(json, DIRECTORY_URL).endpoints[0]).toMatchObject({
      service_name: 'Dirty Data', service_description: 'Line one\nline two', service_category: 'data', description: 'Query',
    });
  });
});
