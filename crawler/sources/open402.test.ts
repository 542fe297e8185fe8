import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UNKNOWN_PRICE } from '../normalize.ts';
import { parse } from './open402.ts';

const SNAPSHOT_URL = 'https://raw.githubusercontent.com/ArcedeDev/open-402/main/registry/snapshot.json';
const fixture: unknown = JSON.parse(readFileSync(new URL('./fixtures/open-402-snapshot.excerpt.json', import.meta.url), 'utf8'));

describe('open402.ts on a real registry excerpt', () => {
  const { endpoints, skipped } = parse(fixture, SNAPSHOT_URL);
  const find = (domain: string) => endpoints.find((e) => e.url === `https://${domain}/`);

  it('reads only x402 and MPP entries, at their origin', () => {
    expect(skipped).toBe(0);
    expect(endpoints.map((e) => e.url)).toEqual([
      'https://3672fa34-7f25-4e6a-831d-997b06bedf06-00-1i1a41syjss7w.sisko.replit.dev/',
      'https://climate.stripe.dev/',
      'https://x402.robtex.com/',
      'https://inference.surf.cascade.fyi/',
      'https://aegis.borisinc.com/',
      'https://api.agentsboard.ai/',
    ]);
    expect(endpoints.every((e) => e.source === 'open402' && e.method === null && e.price === UNKNOWN_PRICE)).toBe(true);
  });

  it.each([
    ['human names', '3672fa34-7f25-4e6a-831d-997b06bedf06-00-1i1a41syjss7w.sisko.replit.dev', ['x402'], ['base'], ['USDC']],
    ['MPP and x402, Stripe is no chain', 'climate.stripe.dev', ['mpp', 'x402'], ['base'], ['USD', 'USDC']],
    ['L402 terms dropped, address resolved', 'x402.robtex.com', ['x402'], ['base'], ['USDC']],
    ['CAIP-2 network and Solana mint', 'inference.surf.cascade.fyi', ['x402'], ['solana'], ['USDC']],
    ['lower-case mpp tag, no terms', 'aegis.borisinc.com', ['mpp'], [], []],
    ['comma-joined networks', 'api.agentsboard.ai', ['x402'], ['base', 'solana'], ['USDC']],
  ])('%s (%s)', (_case, domain, rails, chains, assets) => {
    const endpoint = find(domain);
    expect(endpoint?.rails).toEqual(rails);
    expect(endpoint?.chains).toEqual(chains);
    expect(endpoint?.assets).toEqual(assets);
  });

  it('takes the display name and description', () => {
    expect(find('climate.stripe.dev')).toMatchObject({
      service_name: 'Stripe Climate',
      service_description: expect.stringContaining('climate contribution'),
      source_url: SNAPSHOT_URL,
    });
  });
});

describe('open402.ts on malformed input', () => {
  it.each([[null], [{}], [{ entries: 'x' }], [{ listings: [] }]])('counts a document of the wrong shape (%j)', (json) => {
    expect(parse(json, SNAPSHOT_URL)).toEqual({ endpoints: [], skipped: 1 });
  });

  it.each([[[]], [{ entries: [] }], [{ entries: {} }]])('reads an empty registry (%j) as empty', (json) => {
    expect(parse(json, SNAPSHOT_URL)).toEqual({ endpoints: [], skipped: 0 });
  });

  it('skips and counts malformed entries, leaves out other protocols', () => {
    const json = {
      entries: [
        null,
        { domain: 'no-protocols.example' },
        { domain: 'ftp://scheme.example/path', protocols: ['x402'] },
        { domain: 'localhost', protocols: ['x402'] },
        { domain: 42, protocols: ['MPP'] },
        { domain: 'l402.example', protocols: ['L402'] },
        { domain: 'none.example', protocols: [] },
        // Host names no URL can carry (a numeric last label reads as a bad IPv4 address).
        { domain: 'shop.123', protocols: ['x402'] },
        { domain: '1.2.3.4.5', protocols: ['x402'] },
        { domain: '999.0.0.1', protocols: ['MPP'] },
        { domain: 'API.Good.example', protocols: ['X402', 5], networks: 'Base', assets: [null, 'USDC'] },
      ],
    };
    const { endpoints, skipped } = parse(json, null);
    expect(skipped).toBe(8);
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ url: 'https://api.good.example/', rails: ['x402'], chains: ['base'], assets: ['USDC'], source_url: null });
  });
});

describe('open402.ts on hostile text', () => {
  it('cleans the name and description as they enter', () => {
    const json = { entries: [{ domain: 'dirty.example', protocols: ['x402'], name: 'Dirty\u2066 \u0001API\u2069', description: 'Fast\u000b\u202Dsearch\u009b' }] };
    expect(parse(json, SNAPSHOT_URL).endpoints[0]).toMatchObject({ service_name: 'Dirty API', service_description: 'Fastsearch' });
  });
});
