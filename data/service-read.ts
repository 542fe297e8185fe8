import { toDisplayName } from '../domain/names.ts';
import type { Service, Stats } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';

/*
 * Reads of services in the list shape, and the census. Writers (data/services.ts, data/probes.ts) and the detail
 * answer (data/service-detail.ts) import these; this module imports no writer, so no module reads back through one
 * that imports it.
 */

export interface ServiceRow {
  rowid: number;
  id: string;
  name: string;
  category: string | null;
  description: string | null;
  endpoint: string;
  facilitator: string | null;
  price_usd: number | null;
  price_display: string | null;
  rails: string;
  chains: string;
  assets: string;
  sources: string;
  live: number | null;
  last_seen_live: string | null;
  first_indexed: string;
  uptime_30d: number | null;
  checks_30d: number;
  median_latency_ms_30d: number | null;
  flags: string;
  owner_verified: number;
  reason: string | null;
  min_price_usd: number | null;
  max_price_usd: number | null;
  endpoint_count: number;
}

export const SERVICE_COLUMNS = `s.rowid, s.id, s.name, s.category, s.description, s.endpoint, s.facilitator, s.price_usd,
  s.price_display, s.rails, s.chains, s.assets, s.sources, s.live, s.last_seen_live, s.first_indexed, s.uptime_30d,
  s.checks_30d, s.median_latency_ms_30d, s.flags, s.owner_verified, s.reason, s.min_price_usd, s.max_price_usd,
  s.endpoint_count`;

/** The census as `getStats` answers it: Stats without `generated_at`. */
export type StatsFigures = Omit<Stats, 'generated_at'>;

const statements = preparedOnce({
  byId: `SELECT ${SERVICE_COLUMNS} FROM services s WHERE s.id = ?`,
  byIds: `SELECT ${SERVICE_COLUMNS} FROM services s WHERE s.id IN (SELECT value FROM json_each(?))`,
  sourceUrls: `SELECT source, url FROM service_sources WHERE service_id = ? ORDER BY source, url`,
  stats: `SELECT total, live, probed, dual_rail, last_probe_at,
      (SELECT count(*) FROM facet_tallies WHERE facet >= 'rail:' AND facet < 'rail;') AS rails
    FROM service_tallies`,
  // Each census a range of facet_tallies' key; assets in the spelling they were first written with (asset_symbols).
  byRail: `SELECT substr(facet, 6) AS key, size FROM facet_tallies WHERE facet >= 'rail:' AND facet < 'rail;'`,
  byChain: `SELECT substr(facet, 7) AS key, size FROM facet_tallies WHERE facet >= 'chain:' AND facet < 'chain;'`,
  byAsset: `SELECT coalesce(a.symbol, substr(t.facet, 7)) AS key, t.size FROM facet_tallies t
    LEFT JOIN asset_symbols a ON a.key = substr(t.facet, 7) WHERE t.facet >= 'asset:' AND t.facet < 'asset;'`,
});

/** One service in the list shape, or null. `id` must already be lower-cased. */
export function getService(db: DB, id: string): Service | null {
  const row = statements(db).byId.get(id) as ServiceRow | undefined;
  return row ? toService(row) : null;
}

/** Where a service is listed: one row per source and listing URL. */
export function listSourceUrls(db: DB, id: string): Array<{ source: string; url: string | null }> {
  const rows = statements(db).sourceUrls.all(id) as Array<{ source: string; url: string }>;
  return rows.map((row) => ({ source: row.source, url: row.url || null }));
}

/** The services with these ids, in the order given; ids not in the index are left out. */
export function getServicesByIds(db: DB, ids: readonly string[]): Service[] {
  if (ids.length === 0) return [];
  const rows = statements(db).byIds.all(JSON.stringify(ids)) as ServiceRow[];
  const byId = new Map(rows.map((row) => [row.id, toService(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Census counts over the whole index, from the tallies the schema keeps (data/migrations/008-tallies.ts): services
 * per rail, chain (as the index names it, lower-cased) and asset (as first written: `USDC`, `pathUSD`).
 * @example getStats(db).by_asset // { USDC: 912, pathUSD: 40 }
 */
export function getStats(db: DB): StatsFigures {
  const s = statements(db);
  const census = (rows: unknown[]) => Object.fromEntries((rows as Array<{ key: string; size: number }>).map((row) => [row.key, row.size]));
  return {
    ...(s.stats.get() as Omit<StatsFigures, 'by_rail' | 'by_chain' | 'by_asset'>),
    by_rail: census(s.byRail.all()),
    by_chain: census(s.byChain.all()),
    by_asset: census(s.byAsset.all()),
  };
}

/** A services row (selected with SERVICE_COLUMNS) in the list shape, named as every page names it (domain/names.ts). */
export function toService(row: ServiceRow): Service {
  return {
    id: row.id,
    name: toDisplayName(row.name, row.endpoint),
    category: row.category,
    description: row.description,
    rails: JSON.parse(row.rails),
    chains: JSON.parse(row.chains),
    assets: JSON.parse(row.assets),
    price: { display: row.price_display, usd: row.price_usd },
    endpoint: row.endpoint,
    facilitator: row.facilitator,
    live: row.live === null ? null : row.live === 1,
    last_seen_live: row.last_seen_live,
    first_indexed: row.first_indexed,
    sources: JSON.parse(row.sources),
    uptime_30d: row.uptime_30d,
    checks_30d: row.checks_30d,
    median_latency_ms_30d: row.median_latency_ms_30d,
    flags: JSON.parse(row.flags),
    owner_verified: row.owner_verified === 1,
    reason: row.reason,
    price_range: { min_usd: row.min_price_usd, max_usd: row.max_price_usd },
    endpoint_count: row.endpoint_count,
  };
}
