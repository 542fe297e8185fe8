import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UNKNOWN_PRICE } from '../normalize.ts';
import { parse } from './acp.ts';

const merchants: unknown = JSON.parse(readFileSync(new URL('./acp-merchants.json', import.meta.url), 'utf8'));

describe('acp.ts on the curated merchant list', () => {
  const { endpoints, skipped } = parse(merchants, null);

  it('lists every merchant once, at acp://<domain>, never with terms or a price', () => {
    expect(skipped).toBe(0);
    expect(endpoints.length).toBeGreaterThan(0);
    expect(new Set(endpoints.map((e) => e.url)).size).toBe(endpoints.length);
    for (const endpoint of endpoints) {
      expect(endpoint.url).toMatch(/^acp:\/\/[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      expect(endpoint).toMatchObject({ source: 'acp', rails: ['acp'], chains: [], assets: [], price: UNKNOWN_PRICE, method: null });
      expect(endpoint.source_url).toMatch(/^https:\/\//);
    }
  });

  it('names the merchant and its announcement', () => {
    expect(endpoints.find((e) => e.url === 'acp://etsy.com')).toMatchObject({
      service_name: 'Etsy',
      source_url: 'https://openai.com/index/buy-it-in-chatgpt/',
      service_description: 'Announced by OpenAI on 2025-09-29 as taking Agentic Commerce Protocol checkouts.',
    });
  });
});

describe('acp.ts on malformed input', () => {
  it.each([[null], [{}], [{ merchants: [] }], ['etsy.com']])('counts a document of the wrong shape (%j)', (json) => {
    expect(parse(json, null)).toEqual({ endpoints: [], skipped: 1 });
  });

  it('skips unsourced or malformed merchants', () => {
    const sourced = { domain: 'Shop.Example', merchant: 'Shop', announced_by: 'Shop Inc.', announcement_url: 'https://shop.example/news' };
    const json = [
      null,
      { ...sourced, announcement_url: undefined },
      { ...sourced, announced_by: '' },
      { ...sourced, domain: 'not a domain' },
      { ...sourced, merchant: 7 },
      sourced,
    ];
    const { endpoints, skipped } = parse(json, null);
    expect(skipped).toBe(5);
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ url: 'acp://shop.example', service_description: 'Announced by Shop Inc. as taking Agentic Commerce Protocol checkouts.' });
  });
});
