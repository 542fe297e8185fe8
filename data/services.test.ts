import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DB } from './db.ts';
import { recordProbe } from './probes.ts';
import { listProbes } from './probe-read.ts';
import { toCaselessGlob, toWords } from './search.ts';
import { keepsMatchOrder, listServices } from './service-list.ts';
import { applyServiceTerms, upsertServices } from './services.ts';
import { getService, getServicesByIds, getStats, listSourceUrls } from './service-read.ts';
import { makeService, openTestDatabase } from './testing.ts';
import type { ServiceFilters } from '../domain/list-query.ts';

const NOW = '2026-11-01T00:00:00.000Z';
const PAGE = { limit: 100, offset: 0 };

function probe(serviceId: string, ok: boolean, at: string) {
  return { service_id: serviceId, probed_at: at, ok, status_code: ok ? 402 : 200, method: 'GET', latency_ms: 50, reason: ok ? null : '200 without a challenge', detected_rails: ok ? (['x402'] as const).slice() : [] };
}

describe('services', () => {
  it('stores a service and reads it back in the list shape, unprobed as live null', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'api-a-test', rails: ['x402', 'mpp'], chains: ['base', 'tempo'] })], NOW);
    const service = getService(db, 'api-a-test');
    expect(service).toMatchObject({ id: 'api-a-test', live: null, last_seen_live: null, first_indexed: NOW, rails: ['x402', 'mpp'], chains: ['base', 'tempo'], sources: ['bazaar'] });
    expect(listSourceUrls(db, 'api-a-test')).toEqual([{ source: 'bazaar', url: 'https://facilitator.test/discovery/resources' }]);
    expect(getStats(db)).toMatchObject({ total: 1, live: 0, probed: 0, dual_rail: 1, rails: 2, last_probe_at: null });
  });

  it('keeps first_indexed and liveness when a service is written again', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], NOW);
    recordProbe(db, probe('a-test', true, '2026-11-02T00:00:00.000Z'));
    upsertServices(db, [makeService({ id: 'a-test', name: 'Renamed' })], '2026-11-03T00:00:00.000Z');
    expect(getService(db, 'a-test')).toMatchObject({ name: 'Renamed', first_indexed: NOW, live: true, last_seen_live: '2026-11-02T00:00:00.000Z' });
  });

  it('writes nothing for a service found as it was stored, and only the service whose listing changed', () => {
    const db = openTestDatabase();
    const found = [makeService({ id: 'a-test' }), makeService({ id: 'b-test', name: 'Bee' })];
    upsertServices(db, found, NOW);
    const rows = () => db.prepare(`SELECT s.id, s.updated_at, e.search_rowid, d.revision FROM services s
      JOIN service_endpoints e ON e.service_id = s.id JOIN service_details d ON d.service_id = s.id ORDER BY s.id`).all() as Array<{ id: string }>;
    const before = rows();
    // A discovery reads every directory in full each time: a service listed as before keeps its rows, rowids and detail.
    upsertServices(db, found, '2026-11-02T00:00:00.000Z');
    expect(rows()).toEqual(before);
    upsertServices(db, [found[0]!, { ...found[1]!, name: 'Bee Two' }], '2026-11-03T00:00:00.000Z');
    const after = rows();
    expect(after.filter((row) => row.id === 'a-test')).toEqual(before.filter((row) => row.id === 'a-test'));
    expect(after.find((row) => row.id === 'b-test')).toMatchObject({ updated_at: '2026-11-03T00:00:00.000Z' });
    expect(after.find((row) => row.id === 'b-test')).not.toEqual(before.find((row) => row.id === 'b-test'));
    expect(getService(db, 'b-test')).toMatchObject({ name: 'Bee Two' });
  });

  it('moves liveness with each probe and keeps the newest 20 probes first', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], NOW);
    for (let minute = 0; minute < 25; minute++) {
      recordProbe(db, probe('a-test', minute % 2 === 0, `2026-11-02T00:${String(minute).padStart(2, '0')}:00.000Z`));
    }
    const probes = listProbes(db, 'a-test');
    expect(probes).toHaveLength(20);
    expect(probes[0]).toMatchObject({ probed_at: '2026-11-02T00:24:00.000Z', ok: true, status_code: 402, detected_rails: ['x402'] });
    expect(probes[1]).toMatchObject({ ok: false, reason: '200 without a challenge' });
    recordProbe(db, probe('a-test', false, '2026-11-02T01:00:00.000Z'));
    expect(getService(db, 'a-test')).toMatchObject({ live: false, last_seen_live: '2026-11-02T00:24:00.000Z' });
    expect(getStats(db)).toMatchObject({ live: 0, probed: 1, last_probe_at: '2026-11-02T01:00:00.000Z' });
  });

  it('ignores a probe older than the one already recorded for liveness', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], NOW);
    recordProbe(db, probe('a-test', true, '2026-11-02T02:00:00.000Z'));
    recordProbe(db, probe('a-test', false, '2026-11-02T01:00:00.000Z'));
    expect(getService(db, 'a-test')?.live).toBe(true);
  });

  it('lists live services first, then by id, and filters by every facet together', () => {
    const db = openTestDatabase();
    upsertServices(db, [
      makeService({ id: 'c-test', rails: ['mpp'], chains: ['tempo'] }),
      makeService({ id: 'a-test' }),
      makeService({ id: 'b-test', rails: ['x402', 'mpp'], chains: ['base', 'tempo'], assets: ['USDC', 'EURC'] }),
      makeService({ id: 'd-test', chains: ['solana'] }),
    ], NOW);
    recordProbe(db, probe('d-test', true, NOW));
    recordProbe(db, probe('b-test', true, NOW));
    const ids = (filters: ServiceFilters) => listServices(db, { filters, page: PAGE, sort: 'live' }).services.map((s) => s.id);
    expect(ids({})).toEqual(['b-test', 'd-test', 'a-test', 'c-test']);
    expect(ids({ rail: 'mpp' })).toEqual(['b-test', 'c-test']);
    expect(ids({ rail: 'mpp', chain: 'base', asset: 'eurc' })).toEqual(['b-test']);
    expect(ids({ live: true })).toEqual(['b-test', 'd-test']);
    expect(ids({ live: false, rail: 'x402' })).toEqual(['a-test']);
    expect(ids({ rail: 'acp' })).toEqual([]);
    expect(listServices(db, { filters: { rail: 'x402' }, page: PAGE, sort: 'live' }).counts).toEqual({ total: 3, live: 2, dual_rail: 1 });
    expect(listServices(db, { filters: {}, page: { limit: 2, offset: 1 }, sort: 'live' }).services.map((s) => s.id)).toEqual(['d-test', 'a-test']);
  });

  it('searches name, category, description and endpoint as substrings', () => {
    const db = openTestDatabase();
    upsertServices(db, [
      makeService({ id: 'api-openweather-test', name: 'Forecasts', description: 'Weather by city' }),
      makeService({ id: 'b-test', name: 'Token prices', category: 'finance' }),
      makeService({ id: 'c-test', name: 'AI', endpoint: 'https://c.test/ai/chat' }),
      makeService({ id: 'd-test', endpoints: [{ ...makeService({ id: 'd-test' }).endpoints[0]!, url: 'https://d.test/v1/pay' },
        { ...makeService({ id: 'd-test' }).endpoints[0]!, url: 'https://d.test/v2/qr/render' }] }),
    ], NOW);
    const ids = (q: string) => listServices(db, { filters: { q }, page: PAGE, sort: 'live' }).services.map((s) => s.id);
    expect(ids('weather')).toEqual(['api-openweather-test']);
    expect(ids('WEATHER city')).toEqual(['api-openweather-test']);
    expect(ids('financ')).toEqual(['b-test']);
    expect(ids('render')).toEqual(['d-test']);
    // Words under three characters are searched in the same columns, and every word must match.
    expect(ids('by')).toEqual(['api-openweather-test']);
    expect(ids('ai')).toEqual(['b-test', 'c-test', 'd-test']); // the name "AI", and "Paid data from ..." descriptions
    expect(ids('qr')).toEqual(['d-test']);
    expect(ids('ai chat')).toEqual(['c-test']);
    expect(ids('ai weather')).toEqual([]);
    expect(ids('by Ci')).toEqual(['api-openweather-test']);
    expect(ids('_')).toEqual([]);
    expect(ids('   ')).toEqual(['api-openweather-test', 'b-test', 'c-test', 'd-test']);
    // A quoted phrase must occur as written; the quotes are not searched for.
    expect(ids('"weather"')).toEqual(['api-openweather-test']);
    expect(ids('"weather by" city')).toEqual(['api-openweather-test']);
    expect(ids('"by weather"')).toEqual([]);
    expect(ids('"token')).toEqual(['b-test']);
    expect(ids('"ai chat"')).toEqual([]);
    expect(ids('"c.test/ai"')).toEqual(['c-test']);
    expect(toWords(' Weather  "air   quality" API "" "open')).toEqual(['weather', 'air quality', 'api', 'open']);
  });

  it('finds short words in any case, non-ASCII letters and pattern characters included', () => {
    const db = openTestDatabase();
    upsertServices(db, [
      makeService({ id: 'uber-test', name: 'Über Café', description: 'ÉTÉ Ökonomie Ω' }),
      makeService({ id: 'pct-test', name: 'Rates 5% [beta] *new? a\\b', description: 'Rocket 🚀x' }),
      makeService({ id: 'plain-test', name: 'Plain' }),
    ], NOW);
    const ids = (q: string) => listServices(db, { filters: { q }, page: PAGE, sort: 'live' }).services.map((s) => s.id);
    for (const q of ['üb', 'ÜB', 'ö', 'ök', 'Ω', 'ω', 'é', 'ÜBER', 'été']) expect(ids(q), q).toEqual(['uber-test']);
    for (const q of ['%', '5%', '[', '[b', '*', '?', 'w?', '\\', 'a\\', '🚀x', 'ket 🚀x']) expect(ids(q), q).toEqual(['pct-test']);
    expect(toCaselessGlob('üb*')).toBe('*[üÜ][bB][*]*');
    expect(toCaselessGlob('5[')).toBe('*5[[]*');
    expect(ids('"quoted')).toEqual([]);
    expect(ids('100%')).toEqual([]);
  });

  it('pages a search the same whether it walks the list order or keeps the order of its matches (common and rare words, with a facet)', () => {
    const db = openTestDatabase();
    const services = Array.from({ length: 300 }, (_, i) => makeService({
      id: `svc-${String((i * 7919) % 300).padStart(3, '0')}-test`,
      description: i % 2 === 0 ? 'Weather by city' : i % 50 === 1 ? 'Folds origami' : 'Token prices',
      rails: i % 5 === 0 ? ['mpp'] : ['x402'],
    }));
    upsertServices(db, services, NOW);
    for (const service of services.filter((_, i) => i % 3 === 0)) recordProbe(db, probe(service.id, true, NOW));
    const expected = (word: string, live?: boolean, rail?: 'x402' | 'mpp') => services
      .map((service, i) => ({ id: service.id, live: i % 3 === 0, matches: service.description!.toLowerCase().includes(word) && (!rail || service.rails.includes(rail)) }))
      .filter((row) => row.matches && (live === undefined || row.live === live))
      .sort((a, b) => Number(b.live) - Number(a.live) || a.id.localeCompare(b.id))
      .map((row) => row.id);
    const walk = (q: string, live?: boolean, rail?: 'x402' | 'mpp') => {
      const seen: string[] = [];
      for (let offset = 0; ; offset += 7) {
        const filters = { q, ...(live === undefined ? {} : { live }), ...(rail ? { rail } : {}) };
        const page = listServices(db, { filters, page: { limit: 7, offset }, sort: 'live' }).services;
        if (page.length === 0) return seen;
        seen.push(...page.map((s) => s.id));
      }
    };
    // Common words walk the list order, page by page; rare ones keep their order.
    expect(keepsMatchOrder(150, 300)).toBe(false);
    expect(keepsMatchOrder(expected('origami').length, 300)).toBe(true);
    const cases = [['weather', undefined], ['weather', true], ['weather', false], ['origami', undefined], ['origami', true],
      ['ci', undefined], ['ci', false], ['ig', undefined], // and words too short for the trigram index
      ['weather', undefined, 'mpp'], ['weather', true, 'x402'], ['origami', undefined, 'x402'], ['ci', false, 'mpp']] as const;
    for (const [word, live, rail] of cases) {
      expect(walk(word, live, rail), `${word} live=${live} rail=${rail}`).toEqual(expected(word, live, rail));
    }
    expect(expected('weather', undefined, 'mpp').length).toBeGreaterThan(0);
    expect(expected('weather')).toHaveLength(150);
    expect(expected('origami', true).length).toBeGreaterThan(0);
  });

  it('keeps the order of a search only when its matches are few', () => {
    expect(keepsMatchOrder(1_223, 100_000)).toBe(true);
    expect(keepsMatchOrder(5_000, 100_000)).toBe(true);
    expect(keepsMatchOrder(5_001, 100_000)).toBe(false);
    expect(keepsMatchOrder(2, 39)).toBe(false);
  });

  describe('beside a crawl in another process', () => {
    const opened: Array<{ dir: string; connections: DB[] }> = [];
    afterEach(() => {
      vi.useRealTimers();
      for (const { dir, connections } of opened.splice(0)) {
        for (const db of connections) db.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
    /** The served connection and a crawl's on one database file, with the clock held at NOW. */
    function openBeside() {
      const dir = mkdtempSync(join(tmpdir(), 'psi-list-beside-'));
      const [served, crawl] = [openDatabase(join(dir, 'index.db')), openDatabase(join(dir, 'index.db'))];
      opened.push({ dir, connections: [served, crawl] });
      vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(NOW) });
      return { served, crawl };
    }

    it('counts lag its commits by at most two seconds, and follow a change through this connection at once', () => {
      const { served, crawl } = openBeside();
      upsertServices(served, [makeService({ id: 'a-test' }), makeService({ id: 'b-test' })], NOW);
      const list = () => listServices(served, { filters: { rail: 'x402' }, page: PAGE, sort: 'live' });
      expect(list().counts).toEqual({ total: 2, live: 0, dual_rail: 0 });

      recordProbe(crawl, probe('a-test', true, NOW));
      vi.advanceTimersByTime(1_000);
      const during = list();
      expect(during.services.map((s) => [s.id, s.live])).toEqual([['a-test', true], ['b-test', null]]);
      expect(during.counts.live).toBe(0);
      vi.advanceTimersByTime(1_000);
      expect(list().counts).toEqual({ total: 2, live: 1, dual_rail: 0 });

      const live = (offset: number) => listServices(served, { filters: { live: true }, page: { limit: 1, offset }, sort: 'live' });
      expect(live(0)).toMatchObject({ counts: { total: 1 }, more: false });
      recordProbe(crawl, probe('b-test', true, NOW));
      vi.advanceTimersByTime(1_000);
      const firstLive = live(0);
      expect(firstLive.counts.total).toBe(1); // still the count of two seconds ago...
      expect(firstLive.more).toBe(true); // ...but the page knows another live service follows
      expect(live(1)).toMatchObject({ services: [{ id: 'b-test' }], more: false });

      upsertServices(served, [makeService({ id: 'c-test' })], NOW);
      expect(list().counts).toEqual({ total: 3, live: 2, dual_rail: 0 });
    });

    it('pages a search in the order of its counts for up to two seconds, each service as it is now', () => {
      const { served, crawl } = openBeside();
      const others = Array.from({ length: 60 }, (_, i) => makeService({ id: `other-${i}-test`, description: 'Token prices' }));
      const weather = ['a-test', 'b-test', 'c-test'].map((id) => makeService({ id, description: 'Weather by city' }));
      upsertServices(served, [...others, ...weather], NOW);
      const search = (offset = 0, limit = 100) => listServices(served, { filters: { q: 'weather' }, page: { limit, offset }, sort: 'live' });
      const ids = (offset?: number, limit?: number) => search(offset, limit).services.map((s) => [s.id, s.live]);
      expect(keepsMatchOrder(3, 63)).toBe(true);
      expect(ids()).toEqual([['a-test', null], ['b-test', null], ['c-test', null]]);

      recordProbe(crawl, probe('c-test', true, NOW));
      crawl.prepare(`DELETE FROM services WHERE id = 'b-test'`).run();
      vi.advanceTimersByTime(1_000);
      // The order of a second ago, with c-test as it is now and b-test, deleted since, left out.
      expect(ids()).toEqual([['a-test', null], ['c-test', true]]);
      expect(ids(1, 1)).toEqual([]); // b-test's place in that order
      expect(search(2, 1)).toMatchObject({ services: [{ id: 'c-test' }], more: false, counts: { total: 3, live: 0 } });
      vi.advanceTimersByTime(1_000);
      expect(ids()).toEqual([['c-test', true], ['a-test', null]]);
      expect(search(0, 1)).toMatchObject({ more: true, counts: { total: 2, live: 1 } });

      upsertServices(served, [makeService({ id: 'd-test', description: 'Weather alerts' })], NOW);
      expect(ids()).toEqual([['c-test', true], ['a-test', null], ['d-test', null]]);
    });
  });

  it('answers a batch in the order asked, leaving out unknown ids', () => {
    const db = openTestDatabase();
    upsertServices(db, ['a-test', 'b-test', 'c-test'].map((id) => makeService({ id })), NOW);
    expect(getServicesByIds(db, ['c-test', 'nope', 'a-test']).map((s) => s.id)).toEqual(['c-test', 'a-test']);
  });

  it('writes nothing when a challenge states the terms the service already has, and takes new ones', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test', rails: ['x402'], chains: ['base'], assets: ['USDC'] })], NOW);
    const { price } = getService(db, 'a-test')!;
    const changes = () => (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    const before = changes();
    applyServiceTerms(db, 'a-test', { rails: ['x402'], chains: ['base'], assets: ['USDC'], price });
    expect(changes()).toBe(before);
    applyServiceTerms(db, 'a-test', { rails: ['x402'], chains: ['solana'], assets: ['USDC'], price });
    expect(changes()).toBeGreaterThan(before);
    expect(getService(db, 'a-test')).toMatchObject({ chains: ['solana'] });
    expect(listServices(db, { filters: { chain: 'solana' }, page: PAGE, sort: 'live' }).services.map((s) => s.id)).toEqual(['a-test']);
    expect(listServices(db, { filters: { chain: 'base' }, page: PAGE, sort: 'live' }).services).toEqual([]);
  });
});
