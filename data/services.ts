import { isDeepStrictEqual } from 'node:util';
import { readServiceState, recordServiceChanges } from './changes.ts';
import { preparedOnce, type DB } from './db.ts';
import { toFacets } from './facets.ts';
import { isDelisted, withOwnerEdits } from './owner-edits.ts';
import { storeServiceDetail } from './service-detail.ts';
import { getService, listSourceUrls } from './service-read.ts';
import { digest } from './digest.ts';
import { toEndpointId } from './endpoint-id.ts';
import { refreshEndpointPrices } from './endpoints.ts';
import type { Rail, ServiceInput, ServiceTerms } from './types.ts';

const statements = preparedOnce({
  upsert: `INSERT INTO services (id, name, category, description, endpoint, facilitator, price_usd, price_display,
      rails, chains, assets, sources, dual_rail, first_indexed, updated_at, input_digest)
    VALUES (@id, @name, @category, @description, @endpoint, @facilitator, @price_usd, @price_display,
      @rails, @chains, @assets, @sources, @dual_rail, @now, @now, @input_digest)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, category = excluded.category,
      description = excluded.description, endpoint = excluded.endpoint, facilitator = excluded.facilitator,
      price_usd = excluded.price_usd, price_display = excluded.price_display, rails = excluded.rails,
      chains = excluded.chains, assets = excluded.assets, sources = excluded.sources,
      dual_rail = excluded.dual_rail, updated_at = excluded.updated_at, input_digest = excluded.input_digest
    RETURNING rowid, live_rank, flags`,
  inputDigest: `SELECT input_digest FROM services WHERE id = ?`,
  deleteEndpoints: `DELETE FROM service_endpoints WHERE service_id = ?`,
  insertEndpoint: `INSERT INTO service_endpoints (service_id, position, url, method, description, price_usd,
      price_display, rails, chains, assets, example_body, sources, id, route_template, docs_url, tags, listed_offers,
      input, output) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  deleteSources: `DELETE FROM service_sources WHERE service_id = ?`,
  insertSource: `INSERT OR IGNORE INTO service_sources (service_id, source, url) VALUES (?, ?, ?)`,
  deleteFacets: `DELETE FROM service_facets WHERE service_id = ?`,
  insertFacet: `INSERT OR IGNORE INTO service_facets (facet, live_rank, service_id, dual_rail) VALUES (?, ?, ?, ?)`,
  deleteSearch: `DELETE FROM services_fts WHERE rowid = ?`,
  insertSearch: `INSERT INTO services_fts (rowid, name, category, description, endpoints) VALUES (?, ?, ?, ?, ?)`,
  endpoints: `SELECT url, method, description, price_usd, price_display, rails, chains, assets, example_body, sources,
      route_template, docs_url, tags, listed_offers, input, output
    FROM service_endpoints WHERE service_id = ? ORDER BY position`,
  // The rails of the last valid challenge: a service's rails hold them beside its directories' (DESIGN.md).
  challengeRails: `SELECT detected_rails FROM probes WHERE service_id = ? AND ok = 1 ORDER BY probed_at DESC, id DESC LIMIT 1`,
  listedRails: `SELECT DISTINCT r.value FROM service_endpoints e, json_each(e.rails) r WHERE e.service_id = ?`,
  updateTerms: `UPDATE services SET rails = @rails, chains = @chains, assets = @assets, dual_rail = @dual_rail,
      price_usd = @price_usd, price_display = @price_display WHERE id = @id RETURNING live_rank`,
});

/**
 * Inserts or updates one service with its endpoints, sources, filter facets and search text, and re-renders its
 * detail answer and 30-day figures as of `now` (data/service-detail.ts).
 * Liveness, `first_indexed`, flags and `owner_verified` of an existing service are kept; what its owner set wins.
 * A service stored from this same input is left as it is (migration 024): probes keep its checks, terms and detail.
 * @example upsertService(db, seedService, new Date().toISOString());
 */
export function upsertService(db: DB, found: ServiceInput, now: string): void {
  const write = toWrite(db, found);
  if (write) writeService(db, write, now);
}

/** What an upsert of `found` writes, with its digest; null when the service is stored from it already. */
function toWrite(db: DB, found: ServiceInput): { input: ServiceInput; inputDigest: string } | null {
  // What the verified owner set wins over what directories say (data/owner-edits.ts).
  const input = withOwnerEdits(db, found);
  const inputDigest = digest(JSON.stringify(input));
  return statements(db).inputDigest.pluck().get(input.id) === inputDigest ? null : { input, inputDigest };
}

function writeService(db: DB, { input, inputDigest }: { input: ServiceInput; inputDigest: string }, now: string): void {
  const s = statements(db);
  const sourceKinds = [...new Set(input.sources.map((ref) => ref.source))].sort();
  const rails = unionRails(input.rails, readChallengeRails(db, input.id));
  const dualRail = rails.length >= 2 ? 1 : 0;
  const { rowid, live_rank, flags } = s.upsert.get({
    id: input.id,
    name: input.name,
    category: input.category,
    description: input.description,
    endpoint: input.endpoint,
    facilitator: input.facilitator,
    price_usd: input.price.usd,
    price_display: input.price.display,
    rails: JSON.stringify(rails),
    chains: JSON.stringify(input.chains),
    assets: JSON.stringify(input.assets),
    sources: JSON.stringify(sourceKinds),
    dual_rail: dualRail,
    now,
    input_digest: inputDigest,
  }) as { rowid: number; live_rank: number; flags: string };

  s.deleteEndpoints.run(input.id);
  input.endpoints.forEach((e, position) => {
    s.insertEndpoint.run(input.id, position, e.url, e.method, e.description, e.price.usd, e.price.display,
      JSON.stringify(e.rails), JSON.stringify(e.chains), JSON.stringify(e.assets),
      e.example_body === undefined ? null : JSON.stringify(e.example_body), JSON.stringify(e.sources ?? sourceKinds),
      toEndpointId(input.id, e.method, e.url), e.route_template ?? null, e.docs_url ?? null, JSON.stringify(e.tags ?? []),
      JSON.stringify(e.offers ?? []), e.input ? JSON.stringify(e.input) : null, e.output ? JSON.stringify(e.output) : null);
  });
  refreshEndpointPrices(db, input.id);
  s.deleteSources.run(input.id);
  for (const ref of input.sources) s.insertSource.run(input.id, ref.source, ref.url ?? '');
  s.deleteFacets.run(input.id);
  const facets = toFacets({ ...input, rails, sources: sourceKinds, flags: JSON.parse(flags) as string[] });
  for (const facet of facets) s.insertFacet.run(facet, live_rank, input.id, dualRail);
  s.deleteSearch.run(rowid);
  const endpointText = [input.endpoint, ...input.endpoints.map((e) => e.url)].join(' ');
  s.insertSearch.run(rowid, input.name, input.category ?? '', input.description ?? '', endpointText);
  storeServiceDetail(db, input.id, now);
}

/**
 * Writes many services in one transaction, recording in it what changed of each (data/change-detect.ts), unless
 * `changes` is false (seeding the embedded default, which is where the log starts, not a change). A delisted service
 * is left out until it is relisted (data/owners.ts).
 */
export function upsertServices(db: DB, inputs: readonly ServiceInput[], now: string, options: { changes?: boolean } = {}): void {
  const changes = options.changes ?? true;
  db.transaction(() => {
    for (const input of inputs) {
      const write = isDelisted(db, input.id) ? null : toWrite(db, input);
      if (write === null) continue;
      const before = changes ? readServiceState(db, input.id, true) : null;
      writeService(db, write, now);
      if (changes) recordServiceChanges(db, input.id, before, now, true);
    }
  }).immediate();
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
    rails: string; chains: string; assets: string; example_body: string | null; sources: string;
    route_template: string | null; docs_url: string | null; tags: string; listed_offers: string; input: string | null;
    output: string | null;
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
      sources: JSON.parse(row.sources),
      route_template: row.route_template, docs_url: row.docs_url, tags: JSON.parse(row.tags),
      offers: JSON.parse(row.listed_offers), input: row.input === null ? null : JSON.parse(row.input),
      output: row.output === null ? null : JSON.parse(row.output),
      ...(row.example_body === null ? {} : { example_body: JSON.parse(row.example_body) }),
    })),
  };
}

function readChallengeRails(db: DB, id: string): Rail[] {
  const rails = statements(db).challengeRails.pluck().get(id) as string | undefined;
  return rails === undefined ? [] : JSON.parse(rails);
}

/** `a`, then what `b` adds, in the order given. */
const unionRails = (a: readonly Rail[], b: readonly Rail[]): Rail[] => [...new Set([...a, ...b])];

/**
 * What a live challenge states is authoritative over directory data: its chains, assets and (when known) price
 * replace the listed ones, and the service's rails are its directories' plus every rail this challenge shows. Runs inside the caller's transaction, which also
 * re-renders the service's detail (recordProbes does both).
 * @example applyServiceTerms(db, 'api-example-com', { rails: ['x402'], chains: ['base'], assets: ['USDC'], price });
 */
export function applyServiceTerms(db: DB, id: string, terms: ServiceTerms): void {
  const current = getService(db, id);
  if (!current) return;
  const rails = unionRails(statements(db).listedRails.pluck().all(id) as Rail[], terms.rails).sort();
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
  const facets = toFacets({ rails, chains, assets, category: current.category, sources: current.sources, flags: current.flags });
  for (const facet of facets) s.insertFacet.run(facet, live_rank, id, dualRail);
}
