import { describe, expect, it } from 'vitest';
import {
  countEndpoints, getAssetLabels, getDataStamp, getEndpointCounts, listAllServices,
  getFeedOrigin, listEndpoints, listFacetCounts, listProbeDays, listServiceIds, listStateChangedIds, listTouchedIds,
} from './pages.ts';
import { recordProbe } from './probes.ts';
import { upsertServices } from './services.ts';
import { makeService, openTestDatabase } from './testing.ts';

const NOW = '2026-11-01T00:00:00.000Z';
const probe = (id: string, ok: boolean, at: string) => ({
  service_id: id, probed_at: at, ok, status_code: ok ? 402 : 404, method: 'GET', latency_ms: 40, reason: ok ? null : 'no challenge', detected_rails: [],
});

function fill() {
  const db = openTestDatabase();
  const many = Array.from({ length: 7 }, (_, k) => ({
    url: `https://b.example/${k}`, method: k === 0 ? null : 'GET', description: null,
    price: { usd: k === 1 ? null : 0.01 * k, display: null }, rails: ['mpp' as const], chains: ['tempo'], assets: ['pathUSD'],
  }));
  upsertServices(db, [
    makeService({ id: 'a-example' }),
    makeService({ id: 'b-example', rails: ['mpp'], chains: ['tempo'], assets: ['pathUSD'], endpoint: 'https://b.example/0', endpoints: many }),
    makeService({ id: 'c-example', rails: ['x402', 'mpp'], chains: ['base', 'tempo'] }),
  ], NOW);
  return db;
}

describe('data/pages.ts', () => {
  it('pages through the endpoints of a service in listing order', () => {
    const db = fill();
    expect(countEndpoints(db, 'b-example')).toBe(7);
    expect(countEndpoints(db, 'nope')).toBe(0);
    const second = listEndpoints(db, 'b-example', { limit: 3, offset: 3 });
    expect(second.map((e) => e.url)).toEqual(['https://b.example/3', 'https://b.example/4', 'https://b.example/5']);
    expect(listEndpoints(db, 'b-example', { limit: 2, offset: 0 })[1]).toMatchObject({ method: 'GET', price: { usd: null, display: null }, assets: ['pathUSD'] });
    expect(getEndpointCounts(db)).toEqual(new Map([['a-example', 1], ['b-example', 7], ['c-example', 1]]));
  });

  it('lists the daily roll-ups (empty until the crawler fills them)', () => {
    const db = fill();
    recordProbe(db, probe('a-example', true, '2026-11-01T01:00:00.000Z'));
    recordProbe(db, probe('a-example', false, '2026-11-01T02:00:00.000Z'));
    recordProbe(db, probe('a-example', true, '2026-10-20T02:00:00.000Z'));
    expect(listProbeDays(db, 'a-example', '2026-10-01')).toEqual([]);
    db.prepare(`INSERT INTO probe_days VALUES ('a-example', '2026-10-20', 24, 20, 55), ('a-example', '2026-10-31', 24, 24, NULL)`).run();
    expect(listProbeDays(db, 'a-example', '2026-10-01')).toEqual([
      { day: '2026-10-20', checks: 24, challenges: 20, latency_ms_median: 55 },
      { day: '2026-10-31', checks: 24, challenges: 24, latency_ms_median: null },
    ]);
  });

  it('counts services per filter value with the live ones, and lists asset symbols as written', () => {
    const db = fill();
    recordProbe(db, probe('c-example', true, NOW));
    const facets = listFacetCounts(db);
    expect(facets).toContainEqual({ facet: 'rail:mpp', total: 2, live: 1 });
    expect(facets).toContainEqual({ facet: 'chain:base', total: 2, live: 1 });
    expect(facets).toContainEqual({ facet: 'asset:pathusd', total: 1, live: 0 });
    expect(getAssetLabels(db)).toEqual(new Map([['usdc', 'USDC'], ['pathusd', 'pathUSD']]));
  });

  it('lists every service in list order, live first', () => {
    const db = fill();
    recordProbe(db, probe('c-example', true, NOW));
    expect(listServiceIds(db)).toEqual(['c-example', 'a-example', 'b-example']);
    expect(listAllServices(db).map((s) => s.id)).toEqual(['c-example', 'a-example', 'b-example']);
    expect(listAllServices(openTestDatabase())).toEqual([]);
  });

  it('names the services whose state changed after a data stamp, and those probed or written after a time', () => {
    const db = fill();
    recordProbe(db, probe('c-example', true, NOW));
    const stamp = getDataStamp(db);
    expect(stamp).toMatchObject({ services: 3, maxUpdatedAt: NOW, maxOwnerAt: null, maxProbedAt: NOW });
    expect(listStateChangedIds(db, stamp)).toEqual([]);
    const later = '2026-11-02T00:00:00.000Z';
    recordProbe(db, probe('b-example', true, later));
    recordProbe(db, probe('c-example', true, later));
    upsertServices(db, [makeService({ id: 'a-example', name: 'Renamed' })], later);
    // b went live (a change); a was renamed by its directory and c checked again: neither is a change of state.
    expect(listStateChangedIds(db, stamp)).toEqual(['b-example']);
    expect(listTouchedIds(db, NOW)).toEqual(['a-example', 'b-example', 'c-example']);
    expect(listTouchedIds(db, later)).toEqual([]);
    expect(listTouchedIds(db, null)).toEqual(['a-example', 'b-example', 'c-example']);
    expect(getDataStamp(db)).toMatchObject({ maxProbedAt: later });
    expect(listStateChangedIds(db, getDataStamp(db))).toEqual([]);
    expect(listStateChangedIds(db, { services: 0, maxUpdatedAt: null, maxChangeSeq: 0, maxOwnerAt: null, maxProbedAt: null }))
      .toEqual(['a-example', 'b-example', 'c-example']);
    // The history clock is the newest check's time, whatever order checks were written in.
    recordProbe(db, probe('a-example', false, NOW));
    expect(getDataStamp(db).maxProbedAt).toBe(later);
  });

  it('dates a feed without changes by the first indexing', () => {
    const db = fill();
    upsertServices(db, [makeService({ id: 'd-example' })], '2026-11-05T00:00:00.000Z');
    expect(getFeedOrigin(db, 'd-example')).toBe('2026-11-05T00:00:00.000Z');
    expect(getFeedOrigin(db)).toBe(NOW);
    expect(getFeedOrigin(openTestDatabase())).toBeNull();
  });
});
