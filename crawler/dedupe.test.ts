import { describe, expect, it } from 'vitest';
import type { EndpointInput, Price } from '../data/types.ts';
import { compareForMain, toServices } from './dedupe.ts';
import type { DiscoveredEndpoint } from './discovered.ts';
import { FREE_PRICE, UNKNOWN_PRICE } from './normalize.ts';

const usd = (amount: number): Price => ({ usd: amount, display: `$${amount} / call` });

function listing(overrides: Partial<DiscoveredEndpoint> & Pick<DiscoveredEndpoint, 'url'>): DiscoveredEndpoint {
  return {
    source: 'bazaar',
    source_url: null,
    method: 'GET',
    description: null,
    service_name: null,
    service_category: null,
    service_description: null,
    rails: ['x402'],
    chains: [],
    assets: [],
    price: UNKNOWN_PRICE,
    facilitator: null,
    ...overrides,
  };
}

function endpoint(url: string, price: Price, method: string | null = 'GET'): EndpointInput {
  return { url, method, description: null, price, rails: [], chains: [], assets: [] };
}

describe('compareForMain', () => {
  it.each([
    ['paid before unknown', endpoint('https://h.example/b/c', usd(0.1)), endpoint('https://h.example/a', UNKNOWN_PRICE)],
    ['unknown before free', endpoint('https://h.example/b/c', UNKNOWN_PRICE), endpoint('https://h.example/a', FREE_PRICE)],
    ['callable before template', endpoint('https://h.example/a/b/c', usd(1)), endpoint('https://h.example/a/:id', usd(1))],
    ['callable before wildcard', endpoint('https://h.example/a/b/c', usd(1)), endpoint('https://h.example/files/*', usd(1))],
    ['callable before {param}', endpoint('https://h.example/a/b/c', usd(1)), endpoint('https://h.example/{id}', usd(1))],
    ['a callable URL of unknown price before a priced template', endpoint('https://h.example/a', UNKNOWN_PRICE), endpoint('https://h.example/{id}', usd(1))],
    ['callable before a normalized {param}', endpoint('https://h.example/a/b/c', usd(1)), endpoint(new URL('https://h.example/{id}').href, usd(1))],
    ['a method before none', endpoint('https://h.example/a/b', UNKNOWN_PRICE), endpoint('https://h.example/', UNKNOWN_PRICE, null)],
    ['fewer path segments', endpoint('https://h.example/z', usd(1)), endpoint('https://h.example/a/b', usd(1))],
    ['query does not count as a segment', endpoint('https://h.example/z?a=/b/c', usd(1)), endpoint('https://h.example/a/b', usd(1))],
    ['URL ascending', endpoint('https://h.example/a', usd(1)), endpoint('https://h.example/b', usd(1))],
    ['then method ascending', endpoint('https://h.example/a', usd(1), 'GET'), endpoint('https://h.example/a', usd(1), 'POST')],
  ])('%s', (_rule, first, second) => {
    expect(compareForMain(first, second)).toBeLessThan(0);
    expect(compareForMain(second, first)).toBeGreaterThan(0);
  });

  it('ignores a port colon when looking for path templates', () => {
    expect(compareForMain(endpoint('https://h.example:8443/a', usd(1)), endpoint('https://h.example:8443/a/b', usd(1)))).toBeLessThan(0);
  });
});

describe('toServices', () => {
  it('makes one service per host, sorted by id, with the main endpoint first', () => {
    const services = toServices([
      listing({ url: 'https://b.example/free', price: FREE_PRICE }),
      listing({ url: 'https://A.example/x', price: usd(0.2), chains: ['base'], assets: ['USDC'] }),
      listing({ url: 'https://b.example/paid/deep', price: usd(0.01), chains: ['solana'], assets: ['USDC'] }),
      listing({ url: 'https://b.example:8443/other' }),
    ]);
    expect(services.map((s) => s.id)).toEqual(['a-example', 'b-example', 'b-example-8443']);
    const b = services[1];
    expect(b?.endpoint).toBe('https://b.example/paid/deep');
    expect(b?.endpoints.map((e) => e.url)).toEqual(['https://b.example/paid/deep', 'https://b.example/free']);
    expect(b?.price).toEqual(usd(0.01));
    expect(b?.chains).toEqual(['solana']);
    expect(b?.name).toBe('b.example');
  });

  it('merges listings of the same method and URL from several directories', () => {
    const [service] = toServices([
      listing({ source: 'open402', url: 'https://h.example/', method: null, rails: ['x402'], service_name: 'H (open402)', chains: ['base'] }),
      listing({ source: 'bazaar', url: 'https://h.example/q', method: 'POST', price: usd(0.5), chains: ['base'], assets: ['USDC'], facilitator: 'https://f.example' }),
      listing({ source: 'mpp.dev', url: 'https://h.example/q', method: 'POST', rails: ['mpp'], description: 'Quote', chains: ['tempo'], assets: ['USDC'], service_name: 'H', service_category: 'data' }),
      listing({ source: 'bazaar', url: 'https://h.example/q', method: 'POST', description: 'Later description', price: usd(0.5) }),
    ]);
    const noCall = { route_template: null, docs_url: null, tags: [], offers: [], input: null, output: null };
    expect(service?.endpoints).toEqual([
      { url: 'https://h.example/q', method: 'POST', description: 'Quote', price: usd(0.5), rails: ['mpp', 'x402'], chains: ['base', 'tempo'], assets: ['USDC'], sources: ['bazaar', 'mpp.dev'], ...noCall },
      { url: 'https://h.example/', method: null, description: null, price: UNKNOWN_PRICE, rails: ['x402'], chains: ['base'], assets: [], sources: ['open402'], ...noCall },
    ]);
    expect(service).toMatchObject({
      name: 'H',
      category: 'data',
      rails: ['mpp', 'x402'],
      chains: ['base', 'tempo'],
      facilitator: 'https://f.example',
      endpoint: 'https://h.example/q',
    });
  });

  it('lists each distinct source once, by source priority', () => {
    const [service] = toServices([
      listing({ source: 'open402', url: 'https://h.example/', source_url: 'https://o.example' }),
      listing({ source: 'mpp.dev', url: 'https://h.example/b', source_url: 'https://mpp.dev/api/services?ids=h2' }),
      listing({ source: 'mpp.dev', url: 'https://h.example/a', source_url: 'https://mpp.dev/api/services?ids=h1' }),
      listing({ source: 'mpp.dev', url: 'https://h.example/c', source_url: 'https://mpp.dev/api/services?ids=h1' }),
    ]);
    expect(service?.sources).toEqual([
      { source: 'mpp.dev', url: 'https://mpp.dev/api/services?ids=h1' },
      { source: 'mpp.dev', url: 'https://mpp.dev/api/services?ids=h2' },
      { source: 'open402', url: 'https://o.example' },
    ]);
  });

  it.each([
    [
      'the top source decides',
      [listing({ source: 'open402', url: 'https://h.example/', service_name: 'Open' }), listing({ source: 'bazaar', url: 'https://h.example/a', service_name: 'Bazaar' })],
      'Bazaar',
    ],
    [
      'a lower source fills in when higher ones are silent',
      [listing({ source: 'mpp.dev', url: 'https://h.example/a' }), listing({ source: 'open402', url: 'https://h.example/', service_name: 'Open' })],
      'Open',
    ],
    [
      'a gateway with disagreeing names falls back to the host',
      [
        listing({ source: 'mpp.dev', url: 'https://gw.example/tavily/search', service_name: 'Tavily API' }),
        listing({ source: 'mpp.dev', url: 'https://gw.example/seltz/search', service_name: 'Seltz' }),
        listing({ source: 'open402', url: 'https://gw.example/', service_name: 'Gateway' }),
      ],
      'gw.example',
    ],
    ['no name at all gives the host (with port)', [listing({ url: 'https://h.example:8443/a' })], 'h.example:8443'],
  ])('name: %s', (_rule, listings, name) => {
    expect(toServices(listings)[0]?.name).toBe(name);
  });

  it('picks the most frequent category of the top source (ties alphabetical) and drops disagreeing descriptions', () => {
    const [service] = toServices([
      listing({ source: 'mpp.dev', url: 'https://gw.example/a', service_category: 'search', service_description: 'A' }),
      listing({ source: 'mpp.dev', url: 'https://gw.example/b', service_category: 'data', service_description: 'B' }),
      listing({ source: 'mpp.dev', url: 'https://gw.example/c', service_category: 'data', service_description: 'B' }),
      listing({ source: 'open402', url: 'https://gw.example/', service_category: 'web', service_description: 'Open' }),
    ]);
    expect(service?.category).toBe('data');
    expect(service?.description).toBeNull();
    const [tie] = toServices([
      listing({ url: 'https://t.example/a', service_category: 'web' }),
      listing({ url: 'https://t.example/b', service_category: 'ai' }),
    ]);
    expect(tie?.category).toBe('ai');
  });

  it('keeps ACP merchants as their own acp:// services', () => {
    const [service] = toServices([
      listing({ source: 'acp', url: 'acp://etsy.com', method: null, rails: ['acp'], service_name: 'Etsy', source_url: 'https://openai.com/index/buy-it-in-chatgpt/' }),
    ]);
    expect(service).toMatchObject({ id: 'etsy-com', name: 'Etsy', endpoint: 'acp://etsy.com', rails: ['acp'], chains: [], price: UNKNOWN_PRICE });
  });

  it('is deterministic whatever the input order', () => {
    const listings = [
      listing({ source: 'open402', url: 'https://h.example/', service_name: 'Open' }),
      listing({ source: 'mpp.dev', url: 'https://h.example/b', price: usd(1), service_name: 'Mpp' }),
      listing({ source: 'bazaar', url: 'https://h.example/a', price: usd(1) }),
      listing({ source: 'bazaar', url: 'https://z.example/a' }),
    ];
    expect(toServices([...listings].reverse())).toEqual(toServices(listings));
    expect(toServices([])).toEqual([]);
  });
});
