import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPriceServer, type LocalPriceServer } from '../purchase/testing/price-server.ts';
import { createPriceSource, PRICE_CACHE_MS } from './price-source.ts';

describe('createPriceSource', () => {
  let prices: LocalPriceServer;
  beforeAll(async () => {
    prices = await startPriceServer({ bitcoin: { usd: 97_123.45, usd_24h_change: -1.23456 }, ethereum: { usd: 3_456.7, usd_24h_change: 2.5 } });
  });
  afterAll(() => prices.close());

  it('quotes from the source and reuses a quote for a minute', async () => {
    let nowMs = Date.parse('2026-11-01T12:00:00Z');
    const source = createPriceSource({ url: prices.url, now: () => new Date(nowMs) });
    const before = prices.requests;
    expect(await source.getQuote('BTC')).toEqual({
      price_usd: 97_123.45,
      change_24h_pct: -1.23,
      as_of: '2026-11-01T12:00:00.000Z',
      source: expect.stringMatching(/^127\.0\.0\.1:\d+ \(live public price\)$/),
    });
    expect((await source.getQuote('ETH')).price_usd).toBe(3_456.7);
    nowMs += PRICE_CACHE_MS - 1;
    await source.getQuote('BTC');
    expect(prices.requests - before).toBe(2);
    nowMs += 1;
    await source.getQuote('BTC');
    expect(prices.requests - before).toBe(3);
  });

  it('answers null numbers and says why when the source is unreachable or silent, without waiting long', async () => {
    const closed = createPriceSource({ url: 'http://127.0.0.1:9/api/v3/simple/price', now: () => new Date() });
    expect(await closed.getQuote('ETH')).toMatchObject({ price_usd: null, change_24h_pct: null, source: expect.stringMatching(/unreachable/) });
    const silent = await startPriceServer({}, { hang: true });
    const started = performance.now();
    const quote = await createPriceSource({ url: silent.url, now: () => new Date(), timeoutMs: 200 }).getQuote('BTC');
    expect(quote).toMatchObject({ price_usd: null, change_24h_pct: null, source: expect.stringMatching(/no answer within 200 ms/) });
    expect(performance.now() - started).toBeLessThan(2_000);
    await silent.close();
  });
});
