import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { ServiceFilters } from '../domain/list-query.ts';
import { SORTS, type Sort } from '../domain/schemas.ts';
import { migrate, type DB } from './db.ts';
import { migrations } from './migrations/index.ts';
import { writeServiceFlags } from './flags.ts';
import { recordProbes } from './probes.ts';
import { toQualityOrder } from './quality.ts';
import { listServices } from './service-list.ts';
import { getService, getStats } from './service-read.ts';
import { upsertServices } from './services.ts';
import { makeService, openTestDatabase } from './testing.ts';
import type { ProbeInput } from './types.ts';

const NOW = '2026-11-01T00:00:00.000Z';
const HOUR = 3_600_000;
const hoursAgo = (hours: number) => new Date(Date.parse(NOW) - hours * HOUR).toISOString();

function probe(id: string, ok: boolean, at: string, latency: number | null = 100, status: number | null = ok ? 402 : 404): ProbeInput {
  return { service_id: id, probed_at: at, ok, status_code: status, method: 'GET', latency_ms: latency, reason: ok ? null : 'no challenge', detected_rails: ok ? ['x402'] : [] };
}

/**
 * Nine services with ties on every key: prices (two unknown), first indexed at three times, uptime and latency from
 * their probes (two never probed), categories, facilitators and sources.
 */
function fixture(): DB {
  const db = openTestDatabase();
  const price = (usd: number | null) => ({ usd, display: usd === null ? null : `$${usd}` });
  upsertServices(db, [
    makeService({ id: 'a-test', price: price(0.01), category: 'Data', facilitator: 'https://x402.org/facilitator', name: 'Weather now' }),
    makeService({ id: 'b-test', price: price(0.002), category: 'AI', rails: ['x402', 'mpp'], chains: ['base', 'tempo'], assets: ['USDC', 'pathUSD'],
      sources: [{ source: 'mpp.dev', url: null }], description: 'weather weather weather forecasts' }),
    makeService({ id: 'c-test', price: price(null), category: 'data', facilitator: 'https://api.cdp.coinbase.com/x402' }),
    makeService({ id: 'd-test', price: price(0.01), category: null, rails: ['mpp'], chains: ['tempo'], sources: [{ source: 'mpp.dev', url: null }] }),
  ], hoursAgo(72));
  upsertServices(db, [
    makeService({ id: 'e-test', price: price(0.05), category: 'DATA', description: 'Weather archive' }),
    makeService({ id: 'f-test', price: price(null), category: null, facilitator: 'https://facilitator.payai.network' }),
    makeService({ id: 'g-test', price: price(0.002), category: 'ai' }),
  ], hoursAgo(48));
  upsertServices(db, [
    makeService({ id: 'h-test', price: price(0.01), category: null, sources: [{ source: 'submission', url: null }] }),
    makeService({ id: 'i-test', price: price(0.002), category: null }),
  ], hoursAgo(24));
  // Uptime over 30 days: a 4/4, b 3/4, c 3/4, d 1/4, e 0/2, f 4/4, g 1/4; h and i never probed.
  const runs: Record<string, Array<[boolean, number | null]>> = {
    'a-test': [[true, 300], [true, 100], [true, 200], [true, 400]],
    'b-test': [[true, 50], [false, 60], [true, 70], [true, 80]],
    'c-test': [[true, 500], [true, 500], [false, 500], [true, 500]],
    'd-test': [[false, 90], [false, 90], [false, 90], [true, 90]],
    'e-test': [[false, null], [false, null]],
    'f-test': [[true, 200], [true, 200], [true, 200], [true, 200]],
    'g-test': [[false, 100], [false, 100], [true, 300], [false, 500]],
  };
  recordProbes(db, Object.entries(runs).flatMap(([id, results]) =>
    results.map(([ok, latency], k) => probe(id, ok, hoursAgo(6 * (results.length - 1 - k)), latency, latency === null ? null : ok ? 402 : 404))));
  return db;
}

const ALL = { limit: 100, offset: 0 };

function ids(db: DB, sort: Sort, filters: ServiceFilters = {}): string[] {
  return listServices(db, { filters, page: ALL, sort }).services.map((service) => service.id);
}

/** Every page of a query, `limit` at a time, following the offsets the list gives. */
function walk(db: DB, sort: Sort, filters: ServiceFilters, limit: number): string[] {
  const seen: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = listServices(db, { filters, page: { limit, offset }, sort });
    seen.push(...page.services.map((service) => service.id));
    if (!page.more) return seen;
  }
}

describe('list orders', () => {
  it('sort each way, ties by id, unknown values last', () => {
    const db = fixture();
    expect(ids(db, 'live')).toEqual(['a-test', 'b-test', 'c-test', 'd-test', 'f-test', 'e-test', 'g-test', 'h-test', 'i-test']);
    expect(ids(db, 'price')).toEqual(['b-test', 'g-test', 'i-test', 'a-test', 'd-test', 'h-test', 'e-test', 'c-test', 'f-test']);
    expect(ids(db, 'uptime')).toEqual(['a-test', 'f-test', 'b-test', 'c-test', 'd-test', 'g-test', 'e-test', 'h-test', 'i-test']);
    // Medians b 65, d 90, f and g 200, a 250, c 500; e answered nothing (timeouts): no latency, like the never probed.
    expect(ids(db, 'latency')).toEqual(['b-test', 'd-test', 'f-test', 'g-test', 'a-test', 'c-test', 'e-test', 'h-test', 'i-test']);
    expect(ids(db, 'newest')).toEqual(['h-test', 'i-test', 'e-test', 'f-test', 'g-test', 'a-test', 'b-test', 'c-test', 'd-test']);
  });

  it('keep the 30-day figures each service carries in step with its probes', () => {
    const db = fixture();
    expect(getService(db, 'b-test')).toMatchObject({ uptime_30d: 0.75, checks_30d: 4, median_latency_ms_30d: 65, flags: [], owner_verified: false });
    expect(getService(db, 'e-test')).toMatchObject({ uptime_30d: 0, checks_30d: 2, median_latency_ms_30d: null });
    expect(getService(db, 'h-test')).toMatchObject({ uptime_30d: null, checks_30d: 0, median_latency_ms_30d: null });
  });

  it('report the order applied: relevance only with words to rank by', () => {
    const db = fixture();
    for (const sort of SORTS.filter((one) => one !== 'relevance')) {
      expect(listServices(db, { filters: {}, page: ALL, sort }).sort).toBe(sort);
    }
    expect(listServices(db, { filters: {}, page: ALL, sort: 'relevance' }).sort).toBe('quality');
    // Words under three characters match by LIKE, and rank all the same.
    expect(listServices(db, { filters: { q: 'b' }, page: ALL, sort: 'relevance' }).sort).toBe('relevance');
    const ranked = listServices(db, { filters: { q: 'weather' }, page: ALL, sort: 'relevance' });
    expect(ranked.sort).toBe('relevance');
    // a says weather in its name; b and e as a word of their descriptions, b live and e not.
    expect(ranked.services.map((service) => service.id)).toEqual(['a-test', 'b-test', 'e-test']);
    expect(ranked.counts).toEqual({ total: 3, live: 2, dual_rail: 1 });
  });

  it('quality: live, then unflagged, then 30-day uptime (unknown last), then most directories, then id; paged exactly', () => {
    const db = fixture();
    writeServiceFlags(db, 'f-test', ['wildcard_402']);
    upsertServices(db, [makeService({ id: 'c-test', price: { usd: null, display: null }, category: 'data', facilitator: 'https://api.cdp.coinbase.com/x402',
      sources: [{ source: 'bazaar', url: null }, { source: 'open402', url: null }] })], hoursAgo(1));
    // Live: a 4/4; c and b 3/4, c in two directories; d 1/4; f 4/4 but flagged. Not live: g 1/4, e 0/2, h and i unknown.
    const expected = ['a-test', 'c-test', 'b-test', 'd-test', 'f-test', 'g-test', 'e-test', 'h-test', 'i-test'];
    expect(ids(db, 'quality')).toEqual(expected);
    for (const limit of [1, 2, 4]) expect(walk(db, 'quality', {}, limit), `by ${limit}`).toEqual(expected);
    expect(ids(db, 'quality', { rail: 'x402' })).toEqual(expected.filter((id) => id !== 'd-test'));
    expect(ids(db, 'quality', { live: false })).toEqual(['g-test', 'e-test', 'h-test', 'i-test']);
  });

  it('quality reads its index (migration 018) in order, without a sort', () => {
    const db = fixture();
    const plan = (db.prepare(`EXPLAIN QUERY PLAN SELECT s.id FROM services s INDEXED BY services_quality ORDER BY ${toQualityOrder('s')} LIMIT 20`)
      .all() as Array<{ detail: string }>).map((row) => row.detail).join('\n');
    expect(plan).toContain('services_quality');
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it('relevance: whole words and word starts in name and description above text inside words or URLs, then quality', () => {
    const db = openTestDatabase();
    upsertServices(db, [
      makeService({ id: 'research-test', name: 'Research papers', description: 'Academic research' }),
      makeService({ id: 'websearch-test', name: 'Web search', description: 'Search the web' }),
      makeService({ id: 'searcher-test', name: 'Finder', description: 'Searches news by topic' }),
      makeService({ id: 'url-test', name: 'Pages', description: 'Fetch a page', endpoint: 'https://api.url.test/search' }),
      makeService({ id: 'search2-test', name: 'Search', description: 'Search anything' }),
    ], NOW);
    recordProbes(db, [probe('search2-test', true, NOW)]);
    const ranked = listServices(db, { filters: { q: 'search' }, page: ALL, sort: 'relevance' }).services.map((service) => service.id);
    // search2 and websearch tie on the text (name and description words): search2 is live.
    expect(ranked).toEqual(['search2-test', 'websearch-test', 'searcher-test', 'research-test', 'url-test']);
    for (const limit of [1, 2]) expect(walk(db, 'relevance', { q: 'search' }, limit)).toEqual(ranked);
  });

  it('relevance: the services holding all words but one after every match, in quality order, and not counted', () => {
    const db = openTestDatabase();
    upsertServices(db, [
      makeService({ id: 'shop-test', name: 'Wine shop', description: 'Buy wine online' }),
      makeService({ id: 'cellar-test', name: 'Wine cellar', description: 'Rare wines' }),
      makeService({ id: 'purchase-test', name: 'Purchase wine', description: 'Order bottles' }),
      makeService({ id: 'buyer-test', name: 'Buy now', description: 'Checkout for shops' }),
      makeService({ id: 'weather-test', name: 'Weather', description: 'Forecasts' }),
    ], NOW);
    recordProbes(db, [probe('cellar-test', true, NOW)]);
    const asked = listServices(db, { filters: { q: 'buy wine' }, page: ALL, sort: 'relevance' });
    // shop holds both words; the others one each, live cellar first, then by id.
    const expected = ['shop-test', 'cellar-test', 'buyer-test', 'purchase-test'];
    expect(asked.services.map((service) => service.id)).toEqual(expected);
    expect(asked.counts).toEqual({ total: 1, live: 0, dual_rail: 0 });
    for (const limit of [1, 2, 3]) expect(walk(db, 'relevance', { q: 'buy wine' }, limit), `by ${limit}`).toEqual(expected);
    // Every other order lists the matches alone, as counted.
    expect(ids(db, 'quality', { q: 'buy wine' })).toEqual(['shop-test']);
    // Of three words, two are needed: buy and wine without red, none of them with one word alone.
    expect(ids(db, 'relevance', { q: 'buy red wine' })).toEqual(['shop-test']);
    expect(ids(db, 'relevance', { q: 'buy wine', live: true })).toEqual(['cellar-test']);
    // Among a hundred other services, the few partial matches are sorted rather than walked to: the same order.
    upsertServices(db, Array.from({ length: 100 }, (_, i) => makeService({ id: `other-${i}-test`, name: `Other ${i}`, description: 'Forecasts' })), NOW);
    for (const limit of [1, 3, 100]) expect(walk(db, 'relevance', { q: 'buy wine' }, limit), `among others by ${limit}`).toEqual(expected);
  });

  it('relevance of a common word: ranked only as far as a page needs, in the order a full ranking gives', () => {
    const db = openTestDatabase();
    const number = (i: number) => String(i).padStart(2, '0');
    // Every service says "data" in its description; three also in their names, d29 of them live.
    upsertServices(db, Array.from({ length: 30 }, (_, i) => makeService({
      id: `d${number(i)}-test`, name: [5, 17, 29].includes(i) ? `Data ${number(i)}` : `Service ${number(i)}`,
    })), NOW);
    recordProbes(db, ['d10-test', 'd20-test', 'd29-test'].map((id) => probe(id, true, NOW)));
    const rest = Array.from({ length: 30 }, (_, i) => `d${number(i)}-test`).filter((id) => !['d05-test', 'd10-test', 'd17-test', 'd20-test', 'd29-test'].includes(id));
    const expected = ['d29-test', 'd05-test', 'd17-test', 'd10-test', 'd20-test', ...rest];
    expect(ids(db, 'relevance', { q: 'data' })).toEqual(expected);
    for (const limit of [1, 2, 5, 7]) expect(walk(db, 'relevance', { q: 'data' }, limit), `by ${limit}`).toEqual(expected);
    const first = listServices(db, { filters: { q: 'data' }, page: { limit: 2, offset: 0 }, sort: 'relevance' });
    expect(first.services.map((service) => service.id)).toEqual(['d29-test', 'd05-test']);
    expect(first.more).toBe(true);
    expect(first.counts.total).toBe(30);
  });

  it('free text: every topical word by its stem, stop words left out, a quoted phrase as written', () => {
    const db = openTestDatabase();
    upsertServices(db, [
      makeService({ id: 'scraping-test', name: 'Scraper', description: 'Web scraping of any page' }),
      makeService({ id: 'verify-test', name: 'Mailcheck', description: 'Email address verification' }),
      makeService({ id: 'rates-test', name: 'FX', description: 'Exchange rates for 150 currencies' }),
      makeService({ id: 'the-test', name: 'The', description: 'Nothing else' }),
    ], NOW);
    const found = (q: string) => ids(db, 'relevance', { q });
    expect(found('scrape a web page')).toEqual(['scraping-test']);
    expect(found('verify an email address')).toEqual(['verify-test']);
    expect(found('currency exchange rates')).toEqual(['rates-test']);
    expect(found('"web scrape"')).toEqual([]);
    expect(found('"web scraping"')).toEqual(['scraping-test']);
    // A query of stop words alone is searched as written.
    expect(found('the')).toEqual(['the-test']);
  });

  it('page exactly under every order and filter: no repeats, none skipped', () => {
    const db = fixture();
    const filterSets: ServiceFilters[] = [
      {}, { live: true }, { rail: 'x402' }, { category: 'data' }, { max_price_usd: 0.01 }, { facilitator: 'x402' },
      { source: 'mpp.dev' }, { no_flags: true }, { q: 'test' }, { q: 'weather' }, { rail: 'x402', max_price_usd: 0.01, live: true },
      { q: 'test', chain: 'base' }, { category: 'ai', no_flags: true },
    ];
    for (const sort of SORTS) {
      for (const filters of filterSets) {
        const full = listServices(db, { filters, page: ALL, sort });
        for (const limit of [2, 3]) {
          const pages = walk(db, sort, filters, limit);
          expect(pages, `${sort} ${JSON.stringify(filters)} by ${limit}`).toEqual(full.services.map((service) => service.id));
          expect(new Set(pages).size).toBe(pages.length);
          expect(pages.length).toBe(full.counts.total);
        }
      }
    }
  });
});

describe('list filters', () => {
  it('category exactly in any case, price at most (unknown left out), facilitator substring, source', () => {
    const db = fixture();
    expect(ids(db, 'live', { category: 'data' })).toEqual(['a-test', 'c-test', 'e-test']);
    expect(ids(db, 'live', { category: 'dat' })).toEqual([]);
    expect(ids(db, 'price', { max_price_usd: 0.01 })).toEqual(['b-test', 'g-test', 'i-test', 'a-test', 'd-test', 'h-test']);
    expect(ids(db, 'live', { max_price_usd: 0 })).toEqual([]);
    expect(ids(db, 'live', { facilitator: 'x402' })).toEqual(['a-test', 'c-test']);
    expect(ids(db, 'live', { facilitator: 'payai' })).toEqual(['f-test']);
    expect(ids(db, 'live', { source: 'mpp.dev' })).toEqual(['b-test', 'd-test']);
    expect(ids(db, 'live', { source: 'submission' })).toEqual(['h-test']);
    expect(ids(db, 'price', { category: 'ai', rail: 'x402' })).toEqual(['b-test', 'g-test']);
  });

  it('count what the filters match, whatever the order', () => {
    const db = fixture();
    for (const sort of SORTS) {
      const list = (filters: ServiceFilters) => listServices(db, { filters, page: { limit: 1, offset: 0 }, sort }).counts;
      expect(list({ category: 'data' })).toEqual({ total: 3, live: 2, dual_rail: 0 });
      expect(list({ max_price_usd: 0.01 })).toEqual({ total: 6, live: 3, dual_rail: 1 });
      expect(list({ source: 'mpp.dev', live: true })).toEqual({ total: 2, live: 2, dual_rail: 1 });
      expect(list({ facilitator: 'COINBASE'.toLowerCase() })).toEqual({ total: 1, live: 1, dual_rail: 0 });
    }
  });

  it('count a search and order its matches alike whether they are few (read once) or many (counted)', () => {
    const db = openTestDatabase();
    const price = (usd: number) => ({ usd, display: `$${usd}` });
    upsertServices(db, [
      makeService({ id: 'storm-test', name: 'Storm weather', price: price(0.05), rails: ['x402', 'mpp'], chains: ['base', 'tempo'] }),
      makeService({ id: 'rain-test', name: 'Rain', description: 'Weather radar', price: price(0.01) }),
      makeService({ id: 'sun-test', name: 'Sun weather', price: price(0.02), rails: ['x402', 'mpp'], chains: ['base', 'tempo'] }),
      ...Array.from({ length: 97 }, (_, i) => makeService({ id: `other-${i}-test`, name: `Other ${i}`, description: 'Forecasts' })),
    ], NOW);
    recordProbes(db, [probe('rain-test', true, NOW), probe('sun-test', true, NOW)]);
    // Three matches of a hundred services: few enough to keep their order (keepsMatchOrder).
    for (const sort of SORTS) {
      const asked = listServices(db, { filters: { q: 'weather' }, page: ALL, sort });
      expect(asked.counts, sort).toEqual({ total: 3, live: 2, dual_rail: 2 });
    }
    // The word in the name above the description; then live first.
    expect(ids(db, 'relevance', { q: 'weather' })).toEqual(['sun-test', 'storm-test', 'rain-test']);
    expect(ids(db, 'price', { q: 'weather' })).toEqual(['rain-test', 'sun-test', 'storm-test']);
    expect(ids(db, 'quality', { q: 'weather', live: true })).toEqual(['rain-test', 'sun-test']);
    expect(listServices(db, { filters: { q: 'weather', live: false }, page: ALL, sort: 'relevance' }).counts).toEqual({ total: 1, live: 0, dual_rail: 1 });
    expect(listServices(db, { filters: { q: 'nothing like it' }, page: ALL, sort: 'relevance' }).counts).toEqual({ total: 0, live: 0, dual_rail: 0 });
    // A search reaching its partial matches keeps its words' services; another search of the same words reads its
    // matches from them (heldByAll), and answers as the search index does.
    expect(ids(db, 'relevance', { q: 'storm weather' })).toEqual(['storm-test', 'rain-test', 'sun-test']);
    expect(listServices(db, { filters: { q: 'weather storm' }, page: ALL, sort: 'relevance' }).counts).toEqual({ total: 1, live: 0, dual_rail: 1 });
    expect(ids(db, 'relevance', { q: 'weather storm', live: true })).toEqual(['rain-test', 'sun-test']);
    expect(listServices(db, { filters: { q: 'weather storm', live: true }, page: ALL, sort: 'relevance' }).counts).toEqual({ total: 0, live: 0, dual_rail: 0 });
    expect(ids(db, 'price', { q: 'weather storm' })).toEqual(['storm-test']);
    // A hundred matches: counted, not kept.
    const many = listServices(db, { filters: { q: 'test' }, page: { limit: 2, offset: 0 }, sort: 'relevance' });
    expect(many.counts).toEqual({ total: 100, live: 2, dual_rail: 2 });
    expect(many.more).toBe(true);
  });

  it('flag and flags=none', () => {
    const db = fixture();
    // Flags are written by a later change; set here in SQL, with the facet rows upsertService writes for them.
    db.prepare(`UPDATE services SET flags = '["wildcard_402"]' WHERE id IN ('b-test', 'e-test')`).run();
    upsertServices(db, [getServiceInputLike(db, 'b-test'), getServiceInputLike(db, 'e-test')], hoursAgo(1));
    expect(getService(db, 'b-test')!.flags).toEqual(['wildcard_402']);
    expect(ids(db, 'live', { flag: 'wildcard_402' })).toEqual(['b-test', 'e-test']);
    expect(ids(db, 'price', { flag: 'template_url' })).toEqual([]);
    expect(ids(db, 'live', { no_flags: true })).toEqual(['a-test', 'c-test', 'd-test', 'f-test', 'g-test', 'h-test', 'i-test']);
    expect(listServices(db, { filters: { no_flags: true, rail: 'mpp' }, page: ALL, sort: 'uptime' }).counts).toEqual({ total: 1, live: 1, dual_rail: 0 });
  });
});

describe('stats', () => {
  it('count services by rail, chain and asset (as first spelled)', () => {
    const db = fixture();
    expect(getStats(db)).toMatchObject({
      total: 9, rails: 2,
      by_rail: { x402: 8, mpp: 2 },
      by_chain: { base: 8, tempo: 2 },
      by_asset: { USDC: 9, pathUSD: 1 },
    });
  });
});

describe('migration 009', () => {
  it('adds the columns, backfills the 30-day figures and the new facets, and drops stored details', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    const version = migrations.findIndex((migration) => migration.name === '009-richer-lists');
    db.transaction(() => {
      for (const migration of migrations.slice(0, version)) db.exec(migration.up);
      db.pragma(`user_version = ${version}`);
    })();
    db.prepare(`INSERT INTO services (id, name, category, endpoint, rails, chains, assets, sources, dual_rail, live, live_rank,
        last_probe_at, first_indexed, updated_at) VALUES ('a-test', 'A', 'Data', 'https://a.test/', '["x402"]', '[]', '[]',
        '["bazaar","open402"]', 0, 1, 0, ?, ?, ?)`).run(NOW, NOW, NOW);
    const insertProbe = db.prepare(`INSERT INTO probes (service_id, probed_at, ok, status_code, latency_ms) VALUES ('a-test', ?, ?, ?, ?)`);
    insertProbe.run(hoursAgo(0), 1, 402, 100);
    insertProbe.run(hoursAgo(1), 0, 500, 300);
    insertProbe.run(hoursAgo(30), 1, 402, 200);
    // Days before the raw probes kept: their medians count once per check.
    db.prepare(`INSERT INTO probe_days (service_id, day, checks, challenges, latency_ms_median) VALUES ('a-test', ?, ?, ?, ?)`)
      .run(hoursAgo(20 * 24).slice(0, 10), 4, 4, 1000);
    db.prepare(`INSERT INTO service_details (service_id, body, digest) VALUES ('a-test', '{}', 'x')`).run();
    migrate(db);
    // 30 d: the roll-ups hold more checks (4) than the raw probes (3), so they count (the listing page's rule).
    expect(getService(db, 'a-test')).toMatchObject({ uptime_30d: 1, checks_30d: 4, median_latency_ms_30d: 1000, flags: [], owner_verified: false });
    const facets = db.prepare(`SELECT facet FROM service_facets WHERE service_id = 'a-test' ORDER BY facet`).pluck().all();
    expect(facets).toEqual(['category:data', 'source:bazaar', 'source:open402']);
    expect(db.prepare(`SELECT facet, size FROM facet_tallies WHERE facet = 'category:data'`).get()).toEqual({ facet: 'category:data', size: 1 });
    expect(db.prepare(`SELECT count(*) FROM service_details`).pluck().get()).toBe(0);
    expect(ids(db, 'uptime', { category: 'DATA'.toLowerCase() })).toEqual(['a-test']);
  });
});

/** A stored service as an upsert input (the fields the fixture set), for rewriting it. */
function getServiceInputLike(db: DB, id: string) {
  const service = getService(db, id)!;
  return makeService({ ...service, sources: service.sources.map((source) => ({ source, url: null })), endpoints: [] });
}
