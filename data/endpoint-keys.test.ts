import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EndpointFilters } from '../domain/endpoint-query.ts';
import type { EndpointSort, Offer } from '../domain/schemas.ts';
import { openDatabase, type DB } from './db.ts';
import { recordEndpointChecks } from './endpoint-checks.ts';
import { ENDPOINT_ORDERS, listEndpoints } from './endpoint-list.ts';
import { rankedMatchesOf } from './endpoint-rank.ts';
import { candidatesOf, learntCodesOf, newWordCache, type WordCache } from './endpoint-words.ts';
import { ENDPOINT_JOINS, ENDPOINT_LIVE, ENDPOINT_TEXT } from './endpoints.ts';
import { writeServiceFlags } from './flags.ts';
import { recordProbes } from './probes.ts';
import { writePublicCopy } from './public-copy.ts';
import { upsertServices } from './services.ts';
import { makeService } from './testing.ts';
import type { EndpointInput, ProbeInput } from './types.ts';

/*
 * What the endpoint list filters, counts and orders by, kept on each endpoint row by triggers (migration 021), on a
 * real SQLite file: after every kind of write the kept columns equal what the joins compute, the terms what the
 * offers and listed values say, the tallies a count of the rows; and the list answers exactly what a plain scan over
 * the joins answers, page by page, under every order and filter.
 */

const NOW = '2026-11-26T12:00:00.000Z';
let dir: string;
let db: DB;

const offer = (rail: 'x402' | 'mpp', scheme: string, chain: string, symbol: string, usd: number): Offer => ({
  rail, scheme, method: rail === 'mpp' ? 'tempo' : null, network: null, chain, asset: { symbol, address: null },
  amount: { atomic: null, decimal: null }, usd, unit: 'call', is_maximum: scheme === 'upto', pay_to: null, facilitator: null, seen_in: 'challenge',
});

const endpoint = (url: string, usd: number | null, more: Partial<EndpointInput> = {}): EndpointInput => ({
  url, method: 'GET', description: `Endpoint ${url}`, price: { usd, display: usd === null ? null : `$${usd}` },
  rails: ['x402'], chains: ['base'], assets: ['USDC'], ...more,
});

const probe = (serviceId: string, ok: boolean, at: string, latency = 120): ProbeInput => ({
  service_id: serviceId, probed_at: at, ok, status_code: ok ? 402 : 500, method: 'GET', latency_ms: latency,
  reason: ok ? null : 'HTTP 500', detected_rails: ok ? ['x402'] : [],
});

/** Services whose endpoints differ in every kept key: price, terms, listed offers, checks, liveness, flags, uptime. */
function fill(on: DB, count: number, descriptionOf = (i: number): string => (i % 3 === 0 ? 'Weather data' : 'Stock quotes')): void {
  upsertServices(on, Array.from({ length: count }, (_, i) => makeService({
    id: `s${String(i).padStart(2, '0')}-test`,
    name: `Service ${i}`,
    description: descriptionOf(i),
    sources: i % 4 === 0
      ? [{ source: 'bazaar', url: 'https://b.test/' }, { source: 'mpp.dev', url: 'https://m.test/' }]
      : [{ source: 'bazaar', url: 'https://b.test/' }],
    endpoint: `https://s${i}.test/main`,
    endpoints: [
      endpoint(`https://s${i}.test/main`, [0.01, 0.002, null, 0.05][i % 4]!),
      endpoint(`https://s${i}.test/a`, [0.001, 0.01, 0.02][i % 3]!, i % 2 === 0 ? { rails: ['mpp'], chains: ['tempo'], assets: ['pathUSD'] } : {}),
      endpoint(`https://s${i}.test/b`, null, i % 5 === 0 ? { offers: [offer('x402', 'upto', 'Polygon', 'USDC', 0.004)], rails: [], chains: [], assets: [] }
        : i % 11 === 3 ? { assets: ['US"D'] } : {}),
    ],
  })), NOW);
  const probes = Array.from({ length: count }, (_, i) => i).filter((i) => i % 3 !== 2)
    .map((i) => probe(`s${String(i).padStart(2, '0')}-test`, i % 3 === 0, `2026-11-26T1${i % 10}:00:00.000Z`, 50 + i));
  recordProbes(on, probes);
  recordEndpointChecks(on, Array.from({ length: count }, (_, i) => i).filter((i) => i % 2 === 1).map((i) => ({
    service_id: `s${String(i).padStart(2, '0')}-test`, method: 'GET', url: `https://s${i}.test/a`, checked_at: NOW,
    ok: i % 4 === 1, status_code: 402, latency_ms: 10 * i, reason: null,
    ...(i % 4 === 1 ? { challenge: { offers: [offer('mpp', 'session', 'Tempo', 'pathUSD', 0.0005)] } } : {}),
  })));
  for (let i = 0; i < count; i += 7) writeServiceFlags(on, `s${String(i).padStart(2, '0')}-test`, ['testnet_only']);
}

/** The terms the list's filters read, computed apart from SQL: the standing offers' and the listed values. */
function expectedTerms(row: { listed_offers: string; challenge_offers: string | null; rails: string; chains: string; assets: string }): string[] {
  const offers = JSON.parse(row.challenge_offers ?? row.listed_offers) as Offer[];
  const terms = new Set<string>();
  for (const o of offers) {
    terms.add(`rail:${o.rail.toLowerCase()}`);
    terms.add(`scheme:${o.scheme.toLowerCase()}`);
    if (o.chain !== null) terms.add(`chain:${o.chain.toLowerCase()}`);
    if (o.asset.symbol !== null) terms.add(`asset:${o.asset.symbol.toLowerCase()}`);
  }
  for (const [kind, column] of [['rail', row.rails], ['chain', row.chains], ['asset', row.assets]] as const) {
    for (const value of JSON.parse(column) as string[]) terms.add(`${kind}:${value.toLowerCase()}`);
  }
  return [...terms].sort();
}

/** Every kept column equals what the joins compute, and every tally a count of the rows. */
function expectInStep(on: DB): void {
  const rows = on.prepare(`SELECT e.id, e.live, ${ENDPOINT_LIVE} AS joined_live, e.latency_ms,
      CASE WHEN e.url = s.endpoint THEN s.median_latency_ms_30d ELSE c.latency_ms END AS joined_latency,
      e.service_flagged, s.flags <> '[]' AS joined_flagged, e.service_uptime_30d, s.uptime_30d AS joined_uptime,
      e.service_source_count, json_array_length(s.sources) AS joined_sources,
      e.terms, e.listed_offers, ch.offers AS challenge_offers, e.rails, e.chains, e.assets
    FROM service_endpoints e ${ENDPOINT_JOINS} ORDER BY e.id`).all() as Array<Record<string, unknown> & { terms: string }>;
  for (const row of rows) {
    expect([row.id, row.live, row.latency_ms, row.service_flagged, row.service_uptime_30d, row.service_source_count])
      .toEqual([row.id, row.joined_live, row.joined_latency, row.joined_flagged, row.joined_uptime, row.joined_sources]);
    expect([row.id, (JSON.parse(row.terms) as string[]).sort()]).toEqual([row.id, expectedTerms(row as never)]);
  }
  const tallies = on.prepare(`SELECT term, total, live FROM endpoint_tallies ORDER BY term`).all();
  const counted = on.prepare(`SELECT '' AS term, count(*) AS total, count(*) FILTER (WHERE live IS 1) AS live FROM service_endpoints
      UNION ALL SELECT t.value, count(*), count(*) FILTER (WHERE e.live IS 1) FROM service_endpoints e, json_each(e.terms) t GROUP BY t.value
      ORDER BY term`).all().filter((row) => (row as { total: number }).total > 0);
  expect(tallies).toEqual(counted);
  expect(on.prepare(`SELECT min_usd, total, live FROM endpoint_price_tallies ORDER BY min_usd`).all()).toEqual(
    on.prepare(`SELECT min_usd, count(*) AS total, count(*) FILTER (WHERE live IS 1) AS live FROM service_endpoints
      WHERE min_usd IS NOT NULL GROUP BY min_usd ORDER BY min_usd`).all());
}

const liveOf = (on: DB, url: string) => on.prepare(`SELECT live FROM service_endpoints WHERE url = ?`).pluck().get(url);
const termsOf = (on: DB, url: string) => (JSON.parse(on.prepare(`SELECT terms FROM service_endpoints WHERE url = ?`).pluck().get(url) as string) as string[]).sort();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'psi-endpoint-keys-'));
  db = openDatabase(join(dir, 'index.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the endpoint keys kept by triggers (migration 021)', () => {
  it('follow every kind of write', () => {
    fill(db, 12);
    expectInStep(db);
    expect(liveOf(db, 'https://s0.test/main')).toBe(1);
    expect(liveOf(db, 'https://s1.test/main')).toBe(0);
    expect(liveOf(db, 'https://s2.test/main')).toBe(null);
    expect(liveOf(db, 'https://s1.test/a')).toBe(1);
    expect(termsOf(db, 'https://s1.test/a')).toEqual(['asset:pathusd', 'asset:usdc', 'chain:base', 'chain:tempo', 'rail:mpp', 'rail:x402', 'scheme:session']);
    expect(termsOf(db, 'https://s0.test/b')).toEqual(['asset:usdc', 'chain:polygon', 'rail:x402', 'scheme:upto']);

    const writes: Array<[string, () => void, () => void]> = [
      ['a probe that takes a service dark', () => recordProbes(db, [probe('s00-test', false, '2026-11-26T20:00:00.000Z')]),
        () => expect(liveOf(db, 'https://s0.test/main')).toBe(0)],
      ['a check that finds an endpoint dark', () => recordEndpointChecks(db, [{ service_id: 's01-test', method: 'GET', url: 'https://s1.test/a',
        checked_at: '2026-11-26T21:00:00.000Z', ok: false, status_code: 500, latency_ms: 9, reason: 'HTTP 500' }]),
      () => expect(liveOf(db, 'https://s1.test/a')).toBe(0)],
      ['a check with a challenge on an unchecked endpoint', () => recordEndpointChecks(db, [{ service_id: 's02-test', method: 'GET',
        url: 'https://s2.test/b', checked_at: NOW, ok: true, status_code: 402, latency_ms: 3, reason: null,
        challenge: { offers: [offer('mpp', 'charge', 'Tempo', 'pathUSD', 0.003)] } }]),
      () => expect(termsOf(db, 'https://s2.test/b')).toEqual(['asset:pathusd', 'asset:usdc', 'chain:base', 'chain:tempo', 'rail:mpp', 'rail:x402', 'scheme:charge'])],
      ['flags set and cleared', () => { writeServiceFlags(db, 's03-test', ['testnet_only']); writeServiceFlags(db, 's00-test', []); },
        () => expect(db.prepare(`SELECT service_flagged FROM service_endpoints WHERE url = 'https://s3.test/a'`).pluck().get()).toBe(1)],
      ['a change of sources and the main endpoint, dropping an endpoint and its challenge',
        () => upsertServices(db, [makeService({ id: 's05-test', endpoint: 'https://s5.test/a', sources: [{ source: 'mpp.dev', url: 'https://m.test/' }, { source: 'bazaar', url: 'https://b.test/' }],
          endpoints: [endpoint('https://s5.test/a', 0.3)] })], NOW),
        () => expect(db.prepare(`SELECT count(*) FROM service_endpoints WHERE service_id = 's05-test'`).pluck().get()).toBe(1)],
      ['an endpoint deleted by hand', () => db.prepare(`DELETE FROM service_endpoints WHERE url = 'https://s1.test/a'`).run(),
        () => expect(liveOf(db, 'https://s1.test/a')).toBeUndefined()],
      ['a check deleted', () => db.prepare(`DELETE FROM endpoint_checks WHERE url = 'https://s3.test/a'`).run(),
        () => expect(liveOf(db, 'https://s3.test/a')).toBe(null)],
      ['an uptime written', () => db.prepare(`UPDATE services SET uptime_30d = 0.5 WHERE id = 's04-test'`).run(),
        () => expect(db.prepare(`SELECT service_uptime_30d FROM service_endpoints WHERE url = 'https://s4.test/b'`).pluck().get()).toBe(0.5)],
      ['a service deleted', () => db.prepare(`DELETE FROM services WHERE id = 's03-test'`).run(),
        () => expect(liveOf(db, 'https://s3.test/main')).toBeUndefined()],
    ];
    for (const [, write, check] of writes) {
      write();
      check();
      expectInStep(db);
    }
  });

  it('are filled by the migration on a database made before it, as the triggers would have kept them', () => {
    fill(db, 12);
    const kept = db.prepare(`SELECT id, live, latency_ms, service_flagged, service_uptime_30d, service_source_count, terms FROM service_endpoints ORDER BY id`).all();
    const tallies = db.prepare(`SELECT * FROM endpoint_tallies ORDER BY term`).all();
    // Migrations 022 (the search texts), 023 (the discovery listing) and 024 (input digests) come after, and run again too.
    db.exec(`DROP INDEX service_endpoints_search_keys; DROP TABLE endpoint_texts; DROP TABLE service_texts;
      DROP INDEX endpoint_challenges_listed; DROP INDEX service_endpoints_listing; DROP INDEX service_endpoints_with_input;`);
    db.exec(`DROP INDEX service_endpoints_quality; DROP INDEX service_endpoints_latency; DROP TABLE endpoint_tallies; DROP TABLE endpoint_price_tallies;`);
    for (const name of ['service_endpoints_keys_insert', 'service_endpoints_keys_update', 'services_endpoint_keys', 'endpoint_checks_keys_insert',
      'endpoint_checks_keys_update', 'endpoint_checks_keys_delete', 'endpoint_challenges_terms_insert', 'endpoint_challenges_terms_update',
      'endpoint_challenges_terms_delete', 'service_endpoints_tally_delete', 'service_endpoints_tally_update', 'service_endpoints_texts_update',
      'service_endpoints_texts_delete', 'services_texts_insert', 'services_texts_update', 'services_texts_delete']) db.exec(`DROP TRIGGER ${name}`);
    for (const column of ['live', 'latency_ms', 'service_flagged', 'service_uptime_30d', 'service_source_count', 'terms']) {
      db.exec(`ALTER TABLE service_endpoints DROP COLUMN ${column}`);
    }
    db.exec('ALTER TABLE services DROP COLUMN input_digest');
    db.pragma('user_version = 20');
    db.close();
    db = openDatabase(join(dir, 'index.db'));
    expect(db.prepare(`SELECT id, live, latency_ms, service_flagged, service_uptime_30d, service_source_count, terms FROM service_endpoints ORDER BY id`).all()
      .map((row) => ({ ...(row as object), terms: JSON.parse((row as { terms: string }).terms).sort() })))
      .toEqual(kept.map((row) => ({ ...(row as object), terms: JSON.parse((row as { terms: string }).terms).sort() })));
    expect(db.prepare(`SELECT * FROM endpoint_tallies ORDER BY term`).all()).toEqual(tallies);
    expectInStep(db);
  });

  it('are the same in the public copy', () => {
    fill(db, 12);
    const path = join(dir, 'copy.db');
    writePublicCopy(db, path, 1);
    const copy = new Database(path);
    try {
      expectInStep(copy);
      const read = (on: DB) => on.prepare(`SELECT id, live, latency_ms, service_flagged, service_uptime_30d, service_source_count, terms FROM service_endpoints ORDER BY id`).all();
      expect(read(copy)).toEqual(read(db));
      expect(copy.prepare(`SELECT * FROM endpoint_tallies ORDER BY term`).all()).toEqual(db.prepare(`SELECT * FROM endpoint_tallies ORDER BY term`).all());
    } finally {
      copy.close();
    }
  });
});

/** The plain scan over the joins the list answered before its keys were kept: the reference for every answer. */
function scan(on: DB, filters: EndpointFilters, sort: Exclude<EndpointSort, 'relevance'>): { ids: string[]; total: number; live: number } {
  const offers = `json_each(coalesce(ch.offers, e.listed_offers))`;
  const term = (path: string, listed: string | null) => `(EXISTS (SELECT 1 FROM ${offers} o WHERE lower(json_extract(o.value, '${path}')) = ?)`
    + (listed === null ? ')' : ` OR EXISTS (SELECT 1 FROM json_each(e.${listed}) t WHERE lower(t.value) = ?))`);
  const where: string[] = [];
  const params: unknown[] = [];
  if (filters.live !== undefined) { where.push(`coalesce(${ENDPOINT_LIVE}, 0) = ?`); params.push(filters.live ? 1 : 0); }
  if (filters.rail !== undefined) { where.push(term('$.rail', 'rails')); params.push(filters.rail, filters.rail); }
  if (filters.chain !== undefined) { where.push(term('$.chain', 'chains')); params.push(filters.chain, filters.chain); }
  if (filters.asset !== undefined) { where.push(term('$.asset.symbol', 'assets')); params.push(filters.asset, filters.asset); }
  if (filters.scheme !== undefined) { where.push(term('$.scheme', null)); params.push(filters.scheme); }
  if (filters.max_price_usd !== undefined) { where.push('e.min_usd <= ?'); params.push(filters.max_price_usd); }
  if (filters.service !== undefined) { where.push('e.service_id = ?'); params.push(filters.service); }
  if (filters.flag !== undefined) { where.push(`EXISTS (SELECT 1 FROM json_each(s.flags) f WHERE f.value = ?)`); params.push(filters.flag); }
  if (filters.no_flags) where.push(`s.flags = '[]'`);
  const latency = `(CASE WHEN e.url = s.endpoint THEN s.median_latency_ms_30d ELSE c.latency_ms END)`;
  const by = {
    quality: `coalesce(${ENDPOINT_LIVE}, 0) DESC, s.flags <> '[]', s.uptime_30d IS NULL, s.uptime_30d DESC, json_array_length(s.sources) DESC, e.id`,
    price: 'e.min_usd IS NULL, e.min_usd, e.id',
    latency: `${latency} IS NULL, ${latency}, e.id`,
  }[sort];
  const rows = on.prepare(`SELECT e.id, coalesce(${ENDPOINT_LIVE}, 0) = 1 AS live FROM service_endpoints e ${ENDPOINT_JOINS}
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${by}`).all(...params) as Array<{ id: string; live: number }>;
  return { ids: rows.map((row) => row.id), total: rows.length, live: rows.filter((row) => row.live === 1).length };
}

/**
 * The plain scan of a search in relevance order, scored apart from SQL: the endpoints whose whole text holds every
 * word, by their score (per word: 3 for a whole word of the name or a description, 2 for a word start, 1 else), then
 * in the quality order of `scan`.
 */
function scanRelevance(on: DB, words: string[]): { ids: string[]; total: number; live: number; scores: number[] } {
  const byQuality = scan(on, {}, 'quality');
  const rows = on.prepare(`SELECT e.id, coalesce(${ENDPOINT_LIVE}, 0) = 1 AS live, e.description, e.url, e.tags, s.name, s.description AS service_description
    FROM service_endpoints e ${ENDPOINT_JOINS}`).all() as Array<{ id: string; live: number; description: string | null; url: string; tags: string;
      name: string; service_description: string | null }>;
  const byId = new Map(rows.map((row) => [row.id, row]));
  const scored = byQuality.ids.map((id) => {
    const row = byId.get(id)!;
    const text = [row.description ?? '', row.url, row.tags, row.name, row.service_description ?? ''].join(' ').toLowerCase();
    const scoreText = ` ${[row.name, row.description ?? '', row.service_description ?? ''].join(' ').toLowerCase().replace(/[,.-]/g, ' ')} `;
    const score = words.reduce((sum, word) => sum + (scoreText.includes(` ${word} `) ? 3 : scoreText.includes(` ${word}`) ? 2 : 1), 0);
    return { id, live: row.live, score, holds: words.every((word) => text.includes(word)) };
  }).filter((row) => row.holds).sort((a, b) => b.score - a.score);
  return { ids: scored.map((row) => row.id), total: scored.length, live: scored.filter((row) => row.live === 1).length, scores: scored.map((row) => row.score) };
}

/** Every page of `q` in relevance order, 7 at a time, checked against the scan; the scan's answer. */
function expectRelevance(q: string): ReturnType<typeof scanRelevance> {
  const expected = scanRelevance(db, q.split(' '));
  const seen: string[] = [];
  for (let offset = 0; ; offset += 7) {
    const page = listEndpoints(db, { filters: { q }, page: { limit: 7, offset }, sort: 'relevance' });
    expect([q, page.counts]).toEqual([q, { total: expected.total, live: expected.live }]);
    seen.push(...page.endpoints.map((e) => e.id));
    if (!page.more) break;
  }
  expect([q, seen]).toEqual([q, expected.ids]);
  return expected;
}

describe('listEndpoints over the kept keys', () => {
  const FILTERS: EndpointFilters[] = [
    {}, { live: true }, { live: false }, { rail: 'mpp' }, { rail: 'x402', live: true }, { chain: 'polygon' }, { asset: 'pathusd' },
    { scheme: 'session' }, { scheme: 'upto', live: false }, { max_price_usd: 0.01 }, { max_price_usd: 0.002, live: true },
    { rail: 'nosuch' }, { rail: 'mpp', max_price_usd: 0.01 }, { chain: 'base', asset: 'usdc' }, { service: 's04-test' },
    { flag: 'testnet_only' }, { no_flags: true, live: true }, { asset: 'us"d' }, { asset: 'us' },
  ];

  it('answers the counts and every page a plain scan over the joins answers, under every order and filter', () => {
    fill(db, 40);
    for (const filters of FILTERS) {
      for (const sort of ['quality', 'price', 'latency'] as const) {
        const expected = scan(db, filters, sort);
        const seen: string[] = [];
        for (let offset = 0; ; offset += 7) {
          const page = listEndpoints(db, { filters, page: { limit: 7, offset }, sort });
          expect([filters, sort, page.counts]).toEqual([filters, sort, { total: expected.total, live: expected.live }]);
          seen.push(...page.endpoints.map((e) => e.id));
          if (!page.more) break;
        }
        expect([filters, sort, seen]).toEqual([filters, sort, expected.ids]);
      }
    }
    // A term JSON writes escaped is found through json_each alone: s03, s14 and s36 list it.
    expect(listEndpoints(db, { filters: { asset: 'us"d' }, page: { limit: 10, offset: 0 }, sort: 'quality' }).counts.total).toBe(3);
  });

  it('answers a search of several words in relevance order: its text score, then the quality order, page by page', () => {
    fill(db, 40);
    recordProbes(db, [probe('s05-test', true, '2026-11-26T19:00:00.000Z')]);
    const scores = new Set<number>();
    // Words that score differently across endpoints: a whole word on one, a word start or inside a word on another.
    db.exec(`UPDATE service_endpoints SET description = 'Stock-ticker feed' WHERE url LIKE '%/a' AND service_id IN ('s00-test', 's03-test', 's09-test');
      UPDATE service_endpoints SET description = 'Weathermap, stocks' WHERE url LIKE '%/b';`);
    for (const q of ['stock weather', 'weather stock data', 'quotes stock', 'weathermap stock', 'eather stock', 'data weather service',
      'stock stock ticker', 'weather stock st', 'https stock weather', 'test/a stock', 'stock quotes ma']) {
      const expected = expectRelevance(q);
      scores.add(new Set(expected.scores).size);
    }
    expect(Math.max(...scores)).toBeGreaterThan(1);
  });

  it('answers the scan for searches with a word shorter than the indexes hold, and after a change', () => {
    fill(db, 40);
    db.exec(`UPDATE service_endpoints SET description = 'Stock-ticker st feed' WHERE url LIKE '%/a' AND service_id IN ('s00-test', 's03-test');
      UPDATE service_endpoints SET description = 'Weathermap, stocks' WHERE url LIKE '%/b';`);
    // `st` is shorter than the trigram indexes hold: each search with it reads every candidate's texts.
    const asked = ['weather stock st', 'st stock weather', 'data st stock', 'st quotes stock', 'ticker stock st', 'data weather st']
      .map((q) => expectRelevance(q));
    expect(asked.map(({ scores }) => new Set(scores).size)).toContain(3);
    // The services' descriptions rewritten (`fastest` holds `st` inside a word), and one endpoint's own text.
    fill(db, 40, (i) => (i % 4 === 0 ? 'Weather st data' : i % 4 === 1 ? 'Fastest stock quotes' : 'Stock quotes'));
    db.exec(`UPDATE service_endpoints SET description = 'Stocks, st feed' WHERE url LIKE '%/b' AND service_id = 's02-test'`);
    const after = ['stock weather st', 'data st stock', 'quotes st stock'].map((q) => expectRelevance(q));
    expect(after.map(({ total }) => total)).not.toEqual(asked.slice(1, 4).map(({ total }) => total));
  });

  it('ranks from the codes earlier searches learnt of a word too common to hold sets as from the texts, rowids drifted or not', () => {
    fill(db, 40);
    // Codes that differ from one endpoint to the next: 0, 3 (a whole word) and 2 (a word start) on the three of a service.
    const vary = () => db.exec(`UPDATE service_endpoints SET description = 'Stock-ticker feed' WHERE url LIKE '%/a' AND service_id IN ('s00-test', 's03-test', 's09-test');
      UPDATE service_endpoints SET description = 'Weathermap, stocks' WHERE url LIKE '%/b';`);
    vary();
    const pairs = [['weather', 'stock'], ['data', 'stock'], ['endpoint', 'stock'], ['ticker', 'stock'], ['quotes', 'stock'],
      ['stock', 'weathermap'], ['feed', 'stock'], ['stock', 'quotes']];
    const rank = (cache: WordCache, rarest: string, other: string, unheld: string[]) => {
      const candidates = { ...candidatesOf(db, newWordCache(), rarest, [other]), unheld };
      const { order, live } = rankedMatchesOf(db, cache, candidates, [rarest, other], rarest, [other])!;
      return { order: [...order], live };
    };
    const check = () => {
      // The words are taken as too common to hold sets: their codes are learnt in `learnt`, and read again from it.
      const learnt = newWordCache();
      for (const round of ['read', 'learnt']) {
        for (const [rarest, other] of pairs) {
          const expected = rank(newWordCache(), rarest!, other!, []);
          expect([round, rarest, other, rank(learnt, rarest!, other!, [other!])]).toEqual([round, rarest, other, expected]);
          expect(expected.order.length).toBeGreaterThan(0);
        }
      }
      return learnt;
    };
    const dense = learntCodesOf(db, check(), 'stock');
    // A second read of 64 texts or more, and a hundredth of a half, learnt the half whole in one pass; a first one, or
    // a smaller one, learns only the texts it read.
    expect([dense.endpoints.whole, dense.endpoints.codes.filter((code) => code > 0).length]).toEqual([true, 120]);
    const learning = newWordCache();
    const learnt = () => learntCodesOf(db, learning, 'stock').endpoints;
    rank(learning, 'ticker', 'stock', ['stock']);
    expect([learnt().whole, learnt().codes.filter((code) => code > 0).length]).toEqual([false, 3]);
    // `quotes`' candidates are 78 of the 120 endpoints: read once, they are learnt beside `ticker`'s 3; read again,
    // the second read of many learns them all.
    rank(learning, 'quotes', 'stock', ['stock']);
    expect([learnt().whole, learnt().codes.filter((code) => code > 0).length]).toEqual([false, 81]);
    rank(learning, 'quotes', 'stock', ['stock']);
    expect([learnt().whole, learnt().codes.filter((code) => code > 0).length]).toEqual([true, 120]);
    // Each write of a service gives its endpoints new rowids: half the services written anew four times (their
    // descriptions changed) leaves the others' rowids older than the learnt codes cover, which are read each time.
    for (let k = 0; k < 4; k++) fill(db, 20, (i) => (i % 3 === 0 ? `Weather data ${k}` : `Stock quotes ${k}`));
    vary();
    const drifted = learntCodesOf(db, check(), 'stock').endpoints;
    const oldest = db.prepare(`SELECT min(search_rowid) FROM endpoint_texts`).pluck().get() as number;
    expect(oldest).toBeLessThan(drifted.from);
  });

  it('answers the scan for a word most endpoints hold, which is tested on every endpoint rather than read from its index', () => {
    // Past the indexes' rarity cap in both (2,000 matches each), and in more than half of the endpoints and services.
    upsertServices(db, Array.from({ length: 2_400 }, (_, i) => makeService({
      id: `m${i}-test`, name: `Maker ${i}`, description: i % 7 === 0 ? 'Weather data' : 'Stock API quotes',
      endpoint: `https://m${i}.test/main`,
      endpoints: [endpoint(`https://m${i}.test/main`, 0.01, { description: i % 5 === 0 ? 'Rapid quotes' : 'Quotes api' }),
        endpoint(`https://m${i}.test/b`, 0.002, i % 3 === 0 ? { description: 'Apis-first weather' } : {})],
    })), NOW);
    recordProbes(db, Array.from({ length: 300 }, (_, i) => probe(`m${i * 7}-test`, i % 2 === 0, '2026-11-26T19:00:00.000Z')));
    const totals = ['api', 'weather api', 'api weather', 'rapid api'].map((q) => expectRelevance(q).total);
    expect(totals[0]).toBeGreaterThan(2_400);
    expect(new Set(expectRelevance('api').scores).size).toBe(3);
    // Other orders compute each row's whole text: they keep reading the word's index.
    const byPrice = listEndpoints(db, { filters: { q: 'api' }, page: { limit: 5, offset: 40 }, sort: 'price' });
    const priced = db.prepare(`SELECT e.id FROM service_endpoints e ${ENDPOINT_JOINS} WHERE instr(${ENDPOINT_TEXT}, 'api') > 0
      ORDER BY e.min_usd IS NULL, e.min_usd, e.id`).pluck().all() as string[];
    expect([byPrice.counts.total, byPrice.endpoints.map((e) => e.id)]).toEqual([totals[0], priced.slice(40, 45)]);
  });

  it('reads each order from its index without a sort, and counts a filter from the quality index alone', () => {
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((row) => row.detail).join('\n');
    for (const { by, index } of Object.values(ENDPOINT_ORDERS)) {
      const walk = plan(`SELECT e.id FROM service_endpoints e INDEXED BY ${index} ORDER BY ${by} LIMIT 20`);
      expect(walk).toContain(`COVERING INDEX ${index}`);
      expect(walk).not.toContain('TEMP B-TREE');
    }
    expect(plan(`SELECT count(*), sum(e.live IS 1) FROM service_endpoints e INDEXED BY service_endpoints_quality
      WHERE instr(e.terms, 'rail:mpp') > 0 AND e.min_usd <= 0.01 AND e.latency_ms > 0 AND e.service_flagged = 0`)).toContain('COVERING INDEX service_endpoints_quality');
  });

  it('answers a write at once: counts and pages follow a change through the connection', () => {
    fill(db, 40);
    const asked = () => listEndpoints(db, { filters: { live: true }, page: { limit: 500, offset: 0 }, sort: 'quality' });
    const before = asked();
    expect(before.counts.total).toBeGreaterThan(0);
    recordProbes(db, [probe('s01-test', true, '2026-11-26T23:00:00.000Z')]);
    const after = asked();
    expect(after.counts.total).toBe(before.counts.total + 1);
    expect(after.endpoints.map((e) => e.id)).toEqual(scan(db, { live: true }, 'quality').ids);
  });
});
