import type { EndpointCheck, Service } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';
import { listServices } from './service-list.ts';
import { getServicesByIds, getStats } from './service-read.ts';
import type { Price, Rail } from './types.ts';

/**
 * Reads for the site build (site/build/, site/src/lib/): the listed endpoints of a host page by page, probe
 * counts over a time window, daily roll-ups, facet counts for the home page, and what changed since a render.
 */

/** One listed endpoint of a service, in listing order (the main endpoint is usually first). */
export interface EndpointRecord {
  position: number;
  url: string;
  method: string | null;
  description: string | null;
  price: Price;
  rails: Rail[];
  chains: string[];
  assets: string[];
  /** Its last daily check (data/endpoint-checks.ts), or null; the main endpoint's checks are its probes. */
  last_check: EndpointCheck | null;
}

/** One day of probes of a service, rolled up by the crawler. */
export interface ProbeDayRecord {
  day: string;
  checks: number;
  challenges: number;
  latency_ms_median: number | null;
}

/** The number of services matching one filter value (`rail:x402`, `chain:base`, `asset:usdc`), and live among them. */
export interface FacetCount {
  facet: string;
  total: number;
  live: number;
}

/** A fingerprint of the data the site shows: when it differs from the one a build recorded, the site is stale. */
export interface DataStamp {
  services: number;
  maxUpdatedAt: string | null;
  /** The newest change's sequence number (0 when the log is empty). */
  maxChangeSeq: number;
  /** The newest owner verification. */
  maxOwnerAt: string | null;
  /** The time of the newest probe: the clock the pages' check history follows. */
  maxProbedAt: string | null;
}

const statements = preparedOnce({
  endpoints: `SELECT e.position, e.url, e.method, e.description, e.price_usd, e.price_display, e.rails, e.chains, e.assets,
      c.checked_at, c.ok, c.status_code, c.latency_ms, c.reason
    FROM service_endpoints e
    LEFT JOIN endpoint_checks c ON c.service_id = e.service_id AND c.method = coalesce(e.method, '') AND c.url = e.url
    WHERE e.service_id = ? ORDER BY e.position LIMIT ? OFFSET ?`,
  endpointCount: `SELECT count(*) AS n FROM service_endpoints WHERE service_id = ?`,
  endpointCounts: `SELECT service_id, count(*) AS n FROM service_endpoints GROUP BY service_id`,
  days: `SELECT day, checks, challenges, latency_ms_median FROM probe_days WHERE service_id = ? AND day >= ? ORDER BY day`,
  facets: `SELECT facet, size AS total, live FROM facet_tallies ORDER BY facet`,
  ids: `SELECT id FROM services ORDER BY live_rank, id`,
  assets: `SELECT key, symbol FROM asset_symbols`,
  stamp: `SELECT count(*) AS services, max(updated_at) AS maxUpdatedAt,
      (SELECT coalesce(max(seq), 0) FROM changes) AS maxChangeSeq,
      (SELECT max(verified_at) FROM owner_keys) AS maxOwnerAt,
      (SELECT max(probed_at) FROM probes) AS maxProbedAt FROM services`,
  touchedAfter: `SELECT service_id FROM probes WHERE probed_at > ? UNION SELECT id FROM services WHERE updated_at > ?`,
  changedSince: `SELECT DISTINCT service_id FROM changes WHERE seq > ?`,
  ownedSince: `SELECT service_id FROM owner_keys WHERE verified_at > ?`,
  firstIndexed: `SELECT first_indexed FROM services WHERE id = ?`,
  firstIndexedOfAll: `SELECT min(first_indexed) FROM services`,
  serviceDataTime: `SELECT max(s.updated_at, coalesce((SELECT max(p.probed_at) FROM probes p WHERE p.service_id = s.id), ''))
    FROM services s WHERE s.id = ?`,
  dataTime: `SELECT max(coalesce((SELECT max(updated_at) FROM services), ''),
      coalesce((SELECT probed_at FROM probes ORDER BY id DESC LIMIT 1), ''))`,
});

/**
 * One page of a service's listed endpoints, in listing order.
 * @example listEndpoints(db, 'api-example-com', { limit: 50, offset: 50 });
 */
export function listEndpoints(db: DB, serviceId: string, page: { limit: number; offset: number }): EndpointRecord[] {
  const rows = statements(db).endpoints.all(serviceId, page.limit, page.offset) as Array<{
    position: number;
    url: string;
    method: string | null;
    description: string | null;
    price_usd: number | null;
    price_display: string | null;
    rails: string;
    chains: string;
    assets: string;
    checked_at: string | null;
    ok: number | null;
    status_code: number | null;
    latency_ms: number | null;
    reason: string | null;
  }>;
  return rows.map((row) => ({
    position: row.position,
    url: row.url,
    method: row.method,
    description: row.description,
    price: { usd: row.price_usd, display: row.price_display },
    rails: JSON.parse(row.rails),
    chains: JSON.parse(row.chains),
    assets: JSON.parse(row.assets),
    last_check: row.checked_at === null
      ? null
      : { at: row.checked_at, ok: row.ok === 1, status_code: row.status_code, latency_ms: row.latency_ms, reason: row.reason },
  }));
}

/** How many endpoints a service lists. */
export function countEndpoints(db: DB, serviceId: string): number {
  return (statements(db).endpointCount.get(serviceId) as { n: number }).n;
}

/** How many endpoints each service lists, by id (services listing none are absent). */
export function getEndpointCounts(db: DB): Map<string, number> {
  const rows = statements(db).endpointCounts.all() as Array<{ service_id: string; n: number }>;
  return new Map(rows.map((row) => [row.service_id, row.n]));
}

/** The daily roll-ups of a service from `sinceDay` (YYYY-MM-DD) on, oldest first; empty before the crawler fills them. */
export function listProbeDays(db: DB, serviceId: string, sinceDay: string): ProbeDayRecord[] {
  return statements(db).days.all(serviceId, sinceDay) as ProbeDayRecord[];
}

/** Services per filter value over the whole index, with how many of them are live. */
export function listFacetCounts(db: DB): FacetCount[] {
  return statements(db).facets.all() as FacetCount[];
}

/** How each asset filter value was first written (`pathusd` -> `pathUSD`), for every asset ever listed. */
export function getAssetLabels(db: DB): Map<string, string> {
  const rows = statements(db).assets.all() as Array<{ key: string; symbol: string }>;
  return new Map(rows.map((row) => [row.key, row.symbol]));
}

/** Every service id, in list order (live first, then id). */
export function listServiceIds(db: DB): string[] {
  return (statements(db).ids.all() as Array<{ id: string }>).map((row) => row.id);
}

/** Every service in the list shape, in the list's default order (quality). */
export function listAllServices(db: DB): Service[] {
  const total = getStats(db).total;
  if (total === 0) return [];
  return listServices(db, { filters: {}, page: { limit: total, offset: 0 }, sort: 'quality' }).services;
}

/**
 * Every service in the list shape, in the list's default order (quality), `size` at a time, with the census first,
 * all read in one transaction: the batches neither repeat nor skip a service while another process writes, and agree
 * with the census. For a whole-index file written without the whole index in memory at once.
 * @example readAllServicesInBatches(db, 500, (stats) => begin(stats.total), (services) => append(services));
 */
export function readAllServicesInBatches(db: DB, size: number, census: (stats: ReturnType<typeof getStats>) => void, batch: (services: Service[]) => void): void {
  db.transaction(() => {
    census(getStats(db));
    for (let offset = 0; ; offset += size) {
      const { services, more } = listServices(db, { filters: {}, page: { limit: size, offset }, sort: 'quality' });
      if (services.length > 0) batch(services);
      if (!more) return;
    }
  })();
}

/** Services in the list shape for these ids, in the order given (missing ids left out). */
export function listServicesByIds(db: DB, ids: readonly string[]): Service[] {
  return getServicesByIds(db, ids);
}

/** The data fingerprint: services, the newest write to one, and the newest probe. */
export function getDataStamp(db: DB): DataStamp {
  return statements(db).stamp.get() as DataStamp;
}

/**
 * The time of a service's newest data (its last write or its newest probe, whichever is later), or null when it is
 * not in the index. Pages show it, and count their time windows back from it, instead of the time they were
 * rendered: a render of unchanged data is then the same bytes, and a publish uploads nothing for it.
 * @example getServiceDataTime(db, 'api-example-com') // '2026-11-01T11:59:00.000Z'
 */
export function getServiceDataTime(db: DB, id: string): string | null {
  const time = statements(db).serviceDataTime.pluck().get(id) as string | undefined;
  return time || null;
}

/** The time of the index's newest data (a write to a service or a probe), or null when it holds none. */
export function getDataTime(db: DB): string | null {
  return (statements(db).dataTime.pluck().get() as string) || null;
}

/**
 * Ids of the services whose state changed after a stamp was taken: a change logged (listed, liveness, price,
 * terms, flags, endpoints, an owner's edit, delisted or relisted) or an owner verified. A stamp from before changes
 * were stamped answers every service.
 * @example listStateChangedIds(db, stampOfTheLastRender);
 */
export function listStateChangedIds(db: DB, since: DataStamp): string[] {
  const s = statements(db);
  if (since.maxUpdatedAt === null || since.maxChangeSeq === undefined) return listServiceIds(db).sort();
  const ids = new Set<string>();
  for (const row of s.changedSince.all(since.maxChangeSeq) as Array<{ service_id: string }>) ids.add(row.service_id);
  for (const row of s.ownedSince.all(since.maxOwnerAt ?? '') as Array<{ service_id: string }>) ids.add(row.service_id);
  return [...ids].sort();
}

/** Ids of the services probed, or written by a crawl, after a time (any, when null). */
export function listTouchedIds(db: DB, after: string | null): string[] {
  const rows = statements(db).touchedAfter.all(after ?? '', after ?? '') as Array<{ service_id: string }>;
  return rows.map((row) => row.service_id).sort();
}

/**
 * The date of a feed that holds no change yet: when its service was first indexed, or for the whole index when
 * its first service was; null when there is none. A feed's date then moves only with what it says.
 */
export function getFeedOrigin(db: DB, id?: string): string | null {
  const s = statements(db);
  return ((id === undefined ? s.firstIndexedOfAll.pluck().get() : s.firstIndexed.pluck().get(id)) as string | null | undefined) ?? null;
}
