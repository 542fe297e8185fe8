/**
 * The list operation: one page of services matching the filters, live first then by id, with counts over all
 * matches. Filters read the facet table (`rail:x402`, `chain:base`, `asset:usdc`), driven by the rarest facet asked
 * for; free text reads the trigram index (data/search.ts) and, when matches are few, keeps their order so that each
 * page is read by rowid, or, when they are common, walks the services in list order until the page is full. What every
 * page of one query shares (its counts, a search's order) is cached until a change through this connection, or for up
 * to COUNTS_MAX_LAG_MS after a commit by another (a crawl child): a page lists services as they are, in that order.
 */
import type { Service } from '../api/schemas.ts';
import { cachedStatement, preparedOnce, type DB } from './db.ts';
import { toSearch } from './search.ts';
import { SERVICE_COLUMNS, toFacets, toService, type ServiceRow } from './services.ts';

/** The filters of the list operation, already normalized (lower-cased facet values, chain names). */
export interface ServiceFilters {
  rail?: string;
  chain?: string;
  asset?: string;
  live?: boolean;
  q?: string;
}

export interface ServicePage {
  limit: number;
  offset: number;
}

export interface ListServicesResult {
  counts: { total: number; live: number; dual_rail: number };
  services: Service[];
  /** Whether services follow this page: read with the page (or a search's order), since counts may lag (COUNTS_MAX_LAG_MS). */
  more: boolean;
}

type Counts = ListServicesResult['counts'];

interface ListQuery {
  /** FROM ... WHERE ... for the page (joined to services). */
  pageFrom: string;
  /** FROM ... WHERE ... for the counts (the facet table alone when it can answer). */
  countFrom: string;
  /**
   * For free text: FROM ... WHERE ... walking the services in list order (the `services_order` index, read in
   * sequence) and keeping the matches until the page is full, for words too common to keep their order.
   */
  orderedFrom?: string;
  params: unknown[];
  rank: string;
  key: string;
  dual: string;
}

const statements = preparedOnce({
  facetSizes: `SELECT facet, size FROM facet_tallies`,
  services: `SELECT total FROM service_tallies`,
  inRowids: `SELECT ${SERVICE_COLUMNS} FROM services s WHERE s.rowid IN (SELECT value FROM json_each(?))`,
  // data_version moves when another connection commits (a crawl child), total_changes at a write through this one.
  changes: `SELECT (SELECT data_version FROM pragma_data_version()) AS elsewhere, total_changes() AS here`,
});

interface ListCache {
  /** The changes the cache was last cleared at, and when. */
  changes: Changes;
  clearedAtMs: number;
  matches: Map<string, Matches>;
  /** How many rowids the orders in `matches` hold together. */
  orderedRowids: number;
  facetSizes: Map<string, number>;
  services: number;
}

/** What every page of one query shares. */
interface Matches {
  counts: Counts;
  /** For a search with few matches (keepsMatchOrder), their rowids in list order. */
  order?: number[];
}

/** Per database: what every page of a query shares, and the sizes that plan queries, cleared as COUNTS_MAX_LAG_MS says. */
const caches = new WeakMap<DB, ListCache>();
const MAX_CACHED_QUERIES = 2_000;
/** At most this many rowids are held in orders of matches (about 4 MB), whatever the searches asked. */
const MAX_ORDERED_ROWIDS = 500_000;
/**
 * How long counts may lag another process's commits. A probe pass commits several times a second, and counting
 * anew after each commit made list requests during a pass about ten times slower; reads are cacheable for 60 s anyway.
 * A change through this connection clears them at once.
 */
const COUNTS_MAX_LAG_MS = 2_000;

/**
 * @example listServices(db, { rail: 'x402', live: true }, { limit: 100, offset: 0 });
 */
export function listServices(db: DB, filters: ServiceFilters, page: ServicePage): ListServicesResult {
  const cache = getCache(db);
  const query = toListQuery(filters, cache.facetSizes);
  const { counts, order } = readMatches(db, cache, query);
  const { rows, more } = order ? readInOrder(db, order, page) : readPage(db, query, page);
  return { counts, services: rows.map(toService), more };
}

/** A query's counts, and a search's order when it keeps one: cached, or read now and cached. */
function readMatches(db: DB, cache: ListCache, query: ListQuery): Matches {
  const countSql = `SELECT count(*) AS total, coalesce(sum(${query.rank} = 0), 0) AS live,
    coalesce(sum(${query.dual}), 0) AS dual_rail ${query.countFrom}`;
  const key = `${countSql}\u0000${JSON.stringify(query.params)}`;
  const cached = cache.matches.get(key);
  if (cached) return cached;
  const counts = cachedStatement(db, countSql).get(...query.params) as Counts;
  const order = query.orderedFrom !== undefined && keepsMatchOrder(counts.total, cache.services)
    ? cachedStatement(db, `SELECT s.rowid ${query.pageFrom} ORDER BY ${query.rank}, ${query.key}`).pluck().all(...query.params) as number[]
    : undefined;
  if (cache.matches.size >= MAX_CACHED_QUERIES || cache.orderedRowids + (order?.length ?? 0) > MAX_ORDERED_ROWIDS) {
    cache.matches.clear();
    cache.orderedRowids = 0;
  }
  const matches = order ? { counts, order } : { counts };
  cache.matches.set(key, matches);
  cache.orderedRowids += order?.length ?? 0;
  return matches;
}

/**
 * Whether a search keeps its matches' order, so each page is read by rowid: when they are at most a twentieth of the
 * services (5,000 of 100,000). Reading and sorting them all costs a random row read each, about what the walk in list
 * order costs for its first page; commoner words fill a page within a few times its length of the walk, so they walk.
 * @example keepsMatchOrder(1_223, 100_000); // true
 */
export function keepsMatchOrder(total: number, services: number): boolean {
  return total * ORDER_KEPT_SHARE <= services;
}

const ORDER_KEPT_SHARE = 20;

interface PageRows {
  rows: ServiceRow[];
  more: boolean;
}

/** One page of a kept order, read by rowid. */
function readInOrder(db: DB, order: number[], page: ServicePage): PageRows {
  const rowids = order.slice(page.offset, page.offset + page.limit);
  const more = order.length > page.offset + page.limit;
  if (rowids.length === 0) return { rows: [], more };
  const rows = statements(db).inRowids.all(JSON.stringify(rowids)) as ServiceRow[];
  const byRowid = new Map(rows.map((row) => [row.rowid, row]));
  // A service deleted since the order was read leaves its place empty, so no other is listed twice.
  return { rows: rowids.flatMap((rowid) => byRowid.get(rowid) ?? []), more };
}

/**
 * One page read by the query itself (for a search too common to keep its order, the walk in list order), with one
 * row more to tell whether more follow.
 */
function readPage(db: DB, query: ListQuery, page: ServicePage): PageRows {
  const from = query.orderedFrom ?? query.pageFrom;
  const rows = cachedStatement(db, `SELECT ${SERVICE_COLUMNS} ${from} ORDER BY ${query.rank}, ${query.key} LIMIT ? OFFSET ?`)
    .all(...query.params, page.limit + 1, page.offset) as ServiceRow[];
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}

interface Changes {
  elsewhere: number;
  here: number;
}

function getCache(db: DB): ListCache {
  const s = statements(db);
  const changes = s.changes.get() as Changes;
  const nowMs = Date.now();
  const cache = caches.get(db);
  if (cache && changes.here === cache.changes.here
    && (changes.elsewhere === cache.changes.elsewhere || nowMs - cache.clearedAtMs < COUNTS_MAX_LAG_MS)) return cache;
  const sizes = s.facetSizes.all() as Array<{ facet: string; size: number }>;
  const fresh: ListCache = {
    changes, clearedAtMs: nowMs, matches: new Map(), orderedRowids: 0,
    facetSizes: new Map(sizes.map((row) => [row.facet, row.size])), services: s.services.pluck().get() as number,
  };
  caches.set(db, fresh);
  return fresh;
}

function toListQuery(filters: ServiceFilters, facetSizes: Map<string, number>): ListQuery {
  const facets = toFacets({
    rails: filters.rail ? [filters.rail] : [],
    chains: filters.chain ? [filters.chain] : [],
    assets: filters.asset ? [filters.asset] : [],
  }).sort((a, b) => (facetSizes.get(a) ?? 0) - (facetSizes.get(b) ?? 0));
  const search = filters.q ? toSearch(filters.q) : null;
  // With free text the matches drive (or a walk in list order) and every facet is tested per service: a facet
  // driving beside the matches made SQLite probe each of its rows once per match (18-111 s on 100,000 services).
  const driving = search ? undefined : facets[0];
  const byFacet = driving !== undefined;
  const rank = byFacet ? 'f0.live_rank' : 's.live_rank';
  const key = byFacet ? 'f0.service_id' : 's.id';
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (byFacet) add('f0.facet = ?', driving);
  if (filters.live !== undefined) add(`${rank} = ?`, filters.live ? 0 : 1);
  // The search comes before the facet tests, so a walk passes over most services on the match alone.
  const searchAt = where.length;
  if (search) add(search.sql, ...search.params);
  for (const facet of byFacet ? facets.slice(1) : facets) {
    add(`EXISTS (SELECT 1 FROM service_facets f WHERE f.facet = ? AND f.live_rank = ${rank} AND f.service_id = ${key})`, facet);
  }
  const walkClause = search ? toClause(where.map((sql, i) => (i === searchAt ? search.rowSql : sql))) : undefined;
  const clause = toClause(where);
  const joined = byFacet ? `FROM service_facets f0 JOIN services s ON s.id = f0.service_id${clause}` : `FROM services s${clause}`;
  return {
    pageFrom: joined,
    ...(walkClause === undefined ? {} : { orderedFrom: `FROM services s INDEXED BY services_order${walkClause}` }),
    countFrom: byFacet ? `FROM service_facets f0${clause}` : joined,
    params,
    rank,
    key,
    dual: byFacet ? 'f0.dual_rail' : 's.dual_rail',
  };
}

const toClause = (where: string[]): string => (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '');
