import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, type DB } from './db.ts';
import { migrations } from './migrations/index.ts';
import { getAssetLabels, listFacetCounts } from './pages.ts';
import { recordProbe } from './probes.ts';
import { applyServiceTerms, upsertServices } from './services.ts';
import { getStats } from './service-read.ts';
import { makeService, openTestDatabase } from './testing.ts';
import type { Rail } from './types.ts';

const NOW = '2026-11-01T00:00:00.000Z';
const TALLIES_VERSION = migrations.findIndex((migration) => migration.name === '008-tallies') + 1;

/** The census counted the slow way, by scanning the tables the tallies summarise. */
function scanned(db: DB) {
  const stats = db.prepare(`SELECT count(*) AS total, count(*) FILTER (WHERE live = 1) AS live,
      count(live) AS probed, coalesce(sum(dual_rail), 0) AS dual_rail, max(last_probe_at) AS last_probe_at,
      (SELECT count(DISTINCT facet) FROM service_facets WHERE facet LIKE 'rail:%') AS rails FROM services`).get();
  const facets = db.prepare(`SELECT facet, count(*) AS total, coalesce(sum(live_rank = 0), 0) AS live
      FROM service_facets GROUP BY facet ORDER BY facet`).all();
  const assets = db.prepare(`SELECT DISTINCT lower(a.value) AS key FROM services s, json_each(s.assets) a`).all() as Array<{ key: string }>;
  const census = (sql: string) => Object.fromEntries((db.prepare(sql).all() as Array<{ key: string; n: number }>).map((row) => [row.key, row.n]));
  const byFacet = (kind: string) => census(`SELECT substr(facet, ${kind.length + 2}) AS key, count(*) AS n FROM service_facets
    WHERE facet LIKE '${kind}:%' GROUP BY facet`);
  const by = {
    by_rail: byFacet('rail'),
    by_chain: byFacet('chain'),
    by_asset: census(`SELECT y.symbol AS key, count(DISTINCT s.id) AS n FROM services s, json_each(s.assets) a
      JOIN asset_symbols y ON y.key = lower(a.value) GROUP BY y.symbol`),
  };
  return { stats: { ...(stats as object), ...by }, facets, labelled: assets.map((asset) => asset.key).sort() };
}

function tallied(db: DB) {
  const labels = getAssetLabels(db);
  const facets = listFacetCounts(db);
  const assetKeys = facets.flatMap((facet) => facet.facet.startsWith('asset:') ? [facet.facet.slice(6)] : []);
  return { stats: getStats(db), facets, labelled: assetKeys.filter((key) => labels.has(key)).sort() };
}

function probe(serviceId: string, ok: boolean, at: string) {
  const detected_rails: Rail[] = ok ? ['x402'] : [];
  return { service_id: serviceId, probed_at: at, ok, status_code: ok ? 402 : 200, method: 'GET', latency_ms: 40, reason: ok ? null : '200 without a challenge', detected_rails };
}

function at(minute: number): string {
  return new Date(Date.parse(NOW) + minute * 60_000).toISOString();
}

describe('tallies', () => {
  it('are backfilled from the services already stored when the migration runs', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    db.transaction(() => {
      for (const migration of migrations.slice(0, TALLIES_VERSION - 1)) db.exec(migration.up);
      db.pragma(`user_version = ${TALLIES_VERSION - 1}`);
    })();
    // Written as SQL: the data module's statements already expect the tallies.
    const insertService = db.prepare(`INSERT INTO services (id, name, endpoint, rails, chains, assets, sources, dual_rail,
        live, live_rank, last_probe_at, first_indexed, updated_at) VALUES (?, ?, ?, '[]', '[]', ?, '[]', ?, ?, ?, ?, ?, ?)`);
    const insertFacet = db.prepare(`INSERT INTO service_facets (facet, live_rank, service_id, dual_rail) VALUES (?, ?, ?, ?)`);
    const stored: Array<[string, number, number | null, string | null, string[]]> = [
      ['a-test', 1, 1, at(5), ['rail:x402', 'rail:mpp', 'chain:base', 'asset:usdc']],
      ['b-test', 0, 0, at(9), ['rail:x402', 'chain:solana', 'asset:usdc']],
      ['c-test', 0, null, null, ['rail:mpp', 'chain:base', 'asset:pathusd']],
    ];
    const symbols: Record<string, string> = { usdc: 'USDC', pathusd: 'pathUSD' };
    for (const [id, dualRail, live, probedAt, facets] of stored) {
      const rank = live === 1 ? 0 : 1;
      const assets = facets.flatMap((facet) => facet.startsWith('asset:') ? [symbols[facet.slice(6)]] : []);
      insertService.run(id, id, `https://${id}/pay`, JSON.stringify(assets), dualRail, live, rank, probedAt, NOW, NOW);
      for (const facet of facets) insertFacet.run(facet, rank, id, dualRail);
    }
    expect(db.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'service_tallies'`).get()).toEqual({ n: 0 });
    migrate(db);
    expect(tallied(db)).toEqual(scanned(db));
    expect(getStats(db)).toEqual({
      total: 3, live: 1, probed: 2, dual_rail: 1, rails: 2, last_probe_at: at(9),
      by_rail: { x402: 2, mpp: 2 }, by_chain: { base: 2, solana: 1 }, by_asset: { USDC: 2, pathUSD: 1 },
    });
    expect(listFacetCounts(db)).toContainEqual({ facet: 'chain:base', total: 2, live: 1 });
    expect(getAssetLabels(db)).toEqual(new Map([['usdc', 'USDC'], ['pathusd', 'pathUSD']]));
  });

  it('follow every write the index makes, to the count a full scan gives', () => {
    const db = openTestDatabase();
    expect(getStats(db)).toEqual({
      total: 0, live: 0, probed: 0, dual_rail: 0, rails: 0, last_probe_at: null, by_rail: {}, by_chain: {}, by_asset: {},
    });
    const steps: Array<[string, () => void]> = [
      ['three services', () => upsertServices(db, [
        makeService({ id: 'a-test', rails: ['x402', 'mpp'], chains: ['base', 'tempo'] }),
        makeService({ id: 'b-test', chains: ['solana'], assets: ['USDC', 'USDT'] }),
        makeService({ id: 'c-test', rails: ['mpp'], chains: ['tempo'], assets: ['pathUSD'] }),
      ], NOW)],
      ['a live probe', () => recordProbe(db, probe('a-test', true, at(1)))],
      ['a failed probe', () => recordProbe(db, probe('b-test', false, at(2)))],
      ['the same result again', () => recordProbe(db, probe('a-test', true, at(3)))],
      ['live turning down', () => recordProbe(db, probe('a-test', false, at(4)))],
      ['an older probe, ignored', () => recordProbe(db, probe('a-test', true, at(0)))],
      ['not live turning live', () => recordProbe(db, probe('b-test', true, at(6)))],
      ['rewritten with one rail fewer', () => upsertServices(db, [makeService({ id: 'a-test', rails: ['x402'], chains: ['base'] })], at(7))],
      ['a challenge adding a rail and an asset', () => applyServiceTerms(db, 'b-test', { rails: ['mpp'], chains: ['tempo'], assets: ['USDC', 'EURC'], price: { usd: 0.02, display: '$0.02 / call' } })],
      ['a service deleted', () => db.prepare(`DELETE FROM services WHERE id = 'c-test'`).run()],
    ];
    for (const [step, write] of steps) {
      write();
      expect(tallied(db), step).toEqual(scanned(db));
    }
    expect(getStats(db)).toEqual({
      total: 2, live: 1, probed: 2, dual_rail: 1, rails: 2, last_probe_at: at(6),
      by_rail: { x402: 2, mpp: 1 }, by_chain: { base: 1, tempo: 1 }, by_asset: { USDC: 2, EURC: 1 },
    });
    expect(listFacetCounts(db).find((facet) => facet.facet === 'asset:pathusd')).toBeUndefined();
  });

  it('keep the last probe time when the service probed last is deleted', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' }), makeService({ id: 'b-test' })], NOW);
    recordProbe(db, probe('a-test', true, at(1)));
    recordProbe(db, probe('b-test', true, at(2)));
    db.prepare(`DELETE FROM services WHERE id = 'b-test'`).run();
    expect(getStats(db)).toMatchObject({ total: 1, live: 1, last_probe_at: at(2) });
  });
});
