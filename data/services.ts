import { isDeepStrictEqual } from 'node:util';
import type { Service } from '../api/schemas.ts';
import { preparedOnce, type DB } from './db.ts';
import { storeServiceDetail } from './service-detail.ts';
import type { ServiceInput, ServiceTerms } from './types.ts';

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
}

export const SERVICE_COLUMNS = `s.rowid, s.id, s.name, s.category, s.description, s.endpoint, s.facilitator, s.price_usd,
  s.price_display, s.rails, s.chains, s.assets, s.sources, s.live, s.last_seen_live, s.first_indexed`;

const statements = preparedOnce({
  upsert: `INSERT INTO services (id, name, category, description, endpoint, facilitator, price_usd, price_display,
      rails, chains, assets, sources, dual_rail, first_indexed, updated_at)
    VALUES (@id, @name, @category, @description, @endpoint, @facilitator, @price_usd, @price_display,
      @rails, @chains, @assets, @sources, @dual_rail, @now, @now)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, category = excluded.category,
      description = excluded.description, endpoint = excluded.endpoint, facilitator = excluded.facilitator,
      price_usd = excluded.price_usd, price_display = excluded.price_display, rails = excluded.rails,
      chains = excluded.chains, assets = excluded.assets, sources = excluded.sources,
      dual_rail = excluded.dual_rail, updated_at = excluded.updated_at
    RETURNING rowid, live_rank`,
  deleteEndpoints: `DELETE FROM service_endpoints WHERE service_id = ?`,
  insertEndpoint: `INSERT INTO service_endpoints (service_id, position, url, method, description, price_usd,
      price_display, rails, chains, assets, example_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  deleteSources: `DELETE FROM service_sources WHERE service_id = ?`,
  insertSource: `INSERT OR IGNORE INTO service_sources (service_id, source, url) VALUES (?, ?, ?)`,
  deleteFacets: `DELETE FROM service_facets WHERE service_id = ?`,
  insertFacet: `INSERT OR IGNORE INTO service_facets (facet, live_rank, service_id, dual_rail) VALUES (?, ?, ?, ?)`,
  deleteSearch: `DELETE FROM services_fts WHERE rowid = ?`,
  insertSearch: `INSERT INTO services_fts (rowid, name, category, description, endpoints) VALUES (?, ?, ?, ?, ?)`,
  byId: `SELECT ${SERVICE_COLUMNS} FROM services s WHERE s.id = ?`,
  byIds: `SELECT ${SERVICE_COLUMNS} FROM services s WHERE s.id IN (SELECT value FROM json_each(?))`,
  sourceUrls: `SELECT source, url FROM service_sources WHERE service_id = ? ORDER BY source, url`,
  stats: `SELECT total, live, probed, dual_rail, last_probe_at,
      (SELECT count(*) FROM facet_tallies WHERE facet >= 'rail:' AND facet < 'rail;') AS rails
    FROM service_tallies`,
  endpoints: `SELECT url, method, description, price_usd, price_display, rails, chains, assets, example_body FROM service_endpoints
    WHERE service_id = ? ORDER BY position`,
  updateTerms: `UPDATE services SET rails = @rails, chains = @chains, assets = @assets, dual_rail = @dual_rail,
      price_usd = @price_usd, price_display = @price_display WHERE id = @id RETURNING live_rank`,
});

/**
 * Inserts or updates one service with its endpoints, sources, filter facets and search text.
 * Liveness and `first_indexed` of an existing service are kept.
 * @example upsertService(db, seedService, new Date().toISOString());
 */
export function upsertService(db: DB, input: ServiceInput, now: string): void {
  const s = statements(db);
  const sourceKinds = [...new Set(input.sources.map((ref) => ref.source))].sort();
  const dualRail = input.rails.length >= 2 ? 1 : 0;
  const { rowid, live_rank } = s.upsert.get({
    id: input.id,
    name: input.name,
    category: input.category,
    description: input.description,
    endpoint: input.endpoint,
    facilitator: input.facilitator,
    price_usd: input.price.usd,
    price_display: input.price.display,
    rails: JSON.stringify(input.rails),
    chains: JSON.stringify(input.chains),
    assets: JSON.stringify(input.assets),
    sources: JSON.stringify(sourceKinds),
    dual_rail: dualRail,
    now,
  }) as { rowid: number; live_rank: number };

  s.deleteEndpoints.run(input.id);
  input.endpoints.forEach((e, position) => {
    s.insertEndpoint.run(input.id, position, e.url, e.method, e.description, e.price.usd, e.price.display,
      JSON.stringify(e.rails), JSON.stringify(e.chains), JSON.stringify(e.assets),
      e.example_body === undefined ? null : JSON.stringify(e.example_body));
  });
  s.deleteSources.run(input.id);
  for (const ref of input.sources) s.insertSource.run(input.id, ref.source, ref.url ?? '');
  s.deleteFacets.run(input.id);
  for (const facet of toFacets(input)) s.insertFacet.run(facet, live_rank, input.id, dualRail);
  s.deleteSearch.run(rowid);
  const endpointText = [input.endpoint, ...input.endpoints.map((e) => e.url)].join(' ');
  s.insertSearch.run(rowid, input.name, input.category ?? '', input.description ?? '', endpointText);
  storeServiceDetail(db, input.id);
}

/** Writes many services in one transaction. */
export function upsertServices(db: DB, inputs: readonly ServiceInput[], now: string): void {
  db.transaction(() => {
    for (const input of inputs) upsertService(db, input, now);
  })();
}

/** The facet keys a service matches: `rail:x402`, `chain:base`, `asset:usdc` (values lower-cased). */
export function toFacets(input: { rails: readonly string[]; chains: readonly string[]; assets: readonly string[] }): string[] {
  return [
    ...input.rails.map((rail) => `rail:${rail.toLowerCase()}`),
    ...input.chains.map((chain) => `chain:${chain.toLowerCase()}`),
    ...input.assets.map((asset) => `asset:${asset.toLowerCase()}`),
  ];
}

/**
 * A stored service as the crawler handed it in (endpoints and sources included), or null; for merging a new
 * discovery with what is already known.
 */
export function getServiceInput(db: DB, id: string): ServiceInput | null {
  const service = getService(db, id);
  if (!service) return null;
  const rows = statements(db).endpoints.all(id) as Array<{
    url: string; method: string | null; description: string | null; price_usd: number | null; price_display: string | null;
    rails: string; chains: string; assets: string; example_body: string | null;
  }>;
  return {
    id: service.id, name: service.name, category: service.category, description: service.description,
    endpoint: service.endpoint, facilitator: service.facilitator, price: service.price,
    rails: service.rails, chains: service.chains, assets: service.assets,
    sources: listSourceUrls(db, id),
    endpoints: rows.map((row) => ({
      url: row.url, method: row.method, description: row.description,
      price: { usd: row.price_usd, display: row.price_display },
      rails: JSON.parse(row.rails), chains: JSON.parse(row.chains), assets: JSON.parse(row.assets),
      ...(row.example_body === null ? {} : { example_body: JSON.parse(row.example_body) }),
    })),
  };
}

/**
 * What a live challenge states is authoritative over directory data: its chains, assets and (when known) price
 * replace the listed ones, and its rails join the listed rails. Runs inside the caller's transaction, which also
 * re-renders the service's detail (recordProbes does both).
 * @example applyServiceTerms(db, 'api-example-com', { rails: ['x402'], chains: ['base'], assets: ['USDC'], price });
 */
export function applyServiceTerms(db: DB, id: string, terms: ServiceTerms): void {
  const current = getService(db, id);
  if (!current) return;
  const rails = [...new Set([...current.rails, ...terms.rails])].sort();
  const chains = terms.chains.length > 0 ? terms.chains : current.chains;
  const assets = terms.assets.length > 0 ? terms.assets : current.assets;
  const price = terms.price.usd !== null || terms.price.display !== null ? terms.price : current.price;
  // The usual case: a service's challenge states the same terms pass after pass, and then nothing is written.
  const merged = { rails, chains, assets, price };
  const held = { rails: current.rails, chains: current.chains, assets: current.assets, price: current.price };
  if (isDeepStrictEqual(merged, held)) return;
  const dualRail = rails.length >= 2 ? 1 : 0;
  const s = statements(db);
  const { live_rank } = s.updateTerms.get({
    id, rails: JSON.stringify(rails), chains: JSON.stringify(chains), assets: JSON.stringify(assets),
    dual_rail: dualRail, price_usd: price.usd, price_display: price.display,
  }) as { live_rank: number };
  s.deleteFacets.run(id);
  for (const facet of toFacets({ rails, chains, assets })) s.insertFacet.run(facet, live_rank, id, dualRail);
}

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

/** Census counts over the whole index, from the tallies the schema keeps (data/migrations/008-tallies.ts). */
export function getStats(db: DB): {
  total: number;
  live: number;
  probed: number;
  dual_rail: number;
  rails: number;
  last_probe_at: string | null;
} {
  return statements(db).stats.get() as ReturnType<typeof getStats>;
}

/** A services row (selected with SERVICE_COLUMNS) in the list shape. */
export function toService(row: ServiceRow): Service {
  return {
    id: row.id,
    name: row.name,
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
  };
}
