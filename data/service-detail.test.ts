import { describe, expect, it } from 'vitest';
import { ServiceDetail } from '../domain/schemas.ts';
import { recordProbe, recordProbes } from './probes.ts';
import { listProbes } from './probe-read.ts';
import { listServiceEndpoints } from './endpoints.ts';
import { digest } from './digest.ts';
import { getLatestDetailRevision, listDetailsChangedSince, readServiceDetail } from './service-detail.ts';
import { upsertServices } from './services.ts';
import { getService, listSourceUrls } from './service-read.ts';
import { makeService, openTestDatabase } from './testing.ts';
import { getUptime } from './uptime.ts';
import type { DB } from './db.ts';

const NOW = '2026-11-01T00:00:00.000Z';

function probe(ok: boolean, at: string) {
  return { service_id: 'a-test', probed_at: at, ok, status_code: ok ? 402 : 404, method: 'GET', latency_ms: 40, reason: ok ? null : '404 Not Found', detected_rails: ok ? (['x402'] as const).slice() : [] };
}

/** The detail assembled from its parts as of `now`, to hold the stored answer against. */
function assembled(db: DB, id: string, now: string): ServiceDetail {
  const probes = listProbes(db, id);
  const service = getService(db, id)!;
  const endpoints = listServiceEndpoints(db, id);
  return { ...service, source_urls: listSourceUrls(db, id), probes, uptime: getUptime(db, id, new Date(now)), endpoints, owner: null };
}

function stored(db: DB, id: string): ServiceDetail {
  const detail = readServiceDetail(db, id)!;
  expect(detail.digest).toBe(digest(detail.body));
  return ServiceDetail.parse(JSON.parse(detail.body));
}

describe('stored service details', () => {
  it('follow every write: a new service, its probes, a probe batch, a probe with terms and a rewrite', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], NOW);
    expect(stored(db, 'a-test')).toEqual(assembled(db, 'a-test', NOW));
    expect(stored(db, 'a-test')).toMatchObject({ live: null, probes: [], uptime: { '24h': { checks: 0, detected: 0, ratio: null } } });

    recordProbe(db, probe(true, '2026-11-02T00:00:00.000Z'));
    expect(stored(db, 'a-test')).toMatchObject({ live: true, last_seen_live: '2026-11-02T00:00:00.000Z', probes: [{ ok: true }] });

    recordProbes(db, Array.from({ length: 25 }, (_, i) => probe(i % 2 === 1, `2026-11-03T00:${String(i).padStart(2, '0')}:00.000Z`)));
    expect(stored(db, 'a-test').probes).toHaveLength(20);
    expect(stored(db, 'a-test').live).toBe(false);
    expect(stored(db, 'a-test').probes[0]).toMatchObject({ probed_at: '2026-11-03T00:24:00.000Z', reason: '404 Not Found' });
    // As of the newest probe recorded: 25 checks in the last 24 h, the one of 11-02 in the 7 and 30 days.
    expect(stored(db, 'a-test')).toEqual(assembled(db, 'a-test', '2026-11-03T00:24:00.000Z'));
    expect(stored(db, 'a-test')).toMatchObject({
      uptime: { '24h': { checks: 25, detected: 12 }, '30d': { checks: 26, detected: 13, ratio: 0.5 } },
      uptime_30d: 0.5, checks_30d: 26, median_latency_ms_30d: 40,
    });

    recordProbe(db, { ...probe(true, '2026-11-04T00:00:00.000Z'), terms: { rails: ['mpp'], chains: ['tempo'], assets: ['pathUSD'], price: { usd: 0.5, display: '$0.50' } } });
    expect(stored(db, 'a-test')).toMatchObject({ rails: ['mpp', 'x402'], chains: ['tempo'], price: { usd: 0.5 }, probes: [{ probed_at: '2026-11-04T00:00:00.000Z' }, ...Array(19).fill({})] });

    upsertServices(db, [makeService({ id: 'a-test', name: 'Renamed', sources: [{ source: 'mpp', url: null }] })], NOW);
    expect(stored(db, 'a-test')).toMatchObject({ name: 'Renamed', source_urls: [{ source: 'mpp', url: null }] });
    expect(stored(db, 'a-test')).toEqual(assembled(db, 'a-test', NOW));
  });

  it('is assembled on the spot for a service stored before details were, and null for no service', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], NOW);
    recordProbe(db, probe(true, '2026-11-02T00:00:00.000Z'));
    db.prepare('DELETE FROM service_details').run();
    // Assembled as of the read, with the uptime of that moment.
    expect(stored(db, 'a-test')).toEqual(assembled(db, 'a-test', new Date().toISOString()));
    expect(readServiceDetail(db, 'no-such-test')).toBeNull();
  });

  it('number every rewrite from one counter, so a reader can ask what changed since a revision', () => {
    const db = openTestDatabase();
    expect(getLatestDetailRevision(db)).toBe(0);
    upsertServices(db, [makeService({ id: 'a-test' }), makeService({ id: 'b-test' })], NOW);
    const seen = getLatestDetailRevision(db);
    expect(seen).toBe(2);
    expect(listDetailsChangedSince(db, seen, 10)).toEqual([]);
    recordProbe(db, probe(true, '2026-11-02T00:00:00.000Z'));
    upsertServices(db, [makeService({ id: 'c-test' })], NOW);
    recordProbe(db, probe(false, '2026-11-02T01:00:00.000Z'));
    expect(listDetailsChangedSince(db, seen, 10)).toEqual([
      { service_id: 'c-test', revision: 4 },
      { service_id: 'a-test', revision: 5 },
    ]);
    expect(listDetailsChangedSince(db, seen, 1)).toEqual([{ service_id: 'c-test', revision: 4 }]);
    expect(getLatestDetailRevision(db)).toBe(5);

    // Revisions are never reused, even when the newest detail goes away with its service.
    db.prepare(`DELETE FROM service_details WHERE service_id = 'a-test'`).run();
    recordProbe(db, probe(true, '2026-11-02T02:00:00.000Z'));
    // Its going takes a revision too (a tombstone), so a cache holding its answer forgets it.
    expect(listDetailsChangedSince(db, 5, 10)).toEqual([{ service_id: 'a-test', revision: 6 }, { service_id: 'a-test', revision: 7 }]);
  });
});
