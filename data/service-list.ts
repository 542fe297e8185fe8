/**
 * The list operation: one page of services matching the filters, live first then by id, with counts over all
 * matches. Filters read the facet table (`rail:x402`, `chain:base`, `asset:usdc`), driven by the rarest facet asked
 * for; free text reads the trigram index, then the matches' rows, or, when matches are common, the services in list
 * order until the page is full. Counts are cached, since every page of one query shares them: until a change
 * through this connection, or for up to COUNTS_MAX_LAG_MS after a commit by another (a crawl child).
 */
import type { Service } from '../api/schemas.ts';
import { cachedStatement, preparedOnce, type DB } from './db.ts';
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
  /** Whether services follow this page: read with the page, since counts may lag (COUNTS_MAX_LAG_MS). */
  more: boolean;
}

type Counts = ListServicesResult['counts'];

interface ListQuery {
  /** FROM ... WHERE ... for the page (joined to services). */
  pageFrom: string;
  /** FROM ... WHERE ... for the counts (the facet table alone when it can answer). */
  countFrom: string;
  /** For free text: FROM ... WHERE ... walking the services in list order (see walksInOrder). */
  orderedFrom?: string;
  params: unknown[];
  rank: string;
  key: string;
  dual: string;
}

const statements = preparedOnce({
  facetSizes: `SELECT facet, size FROM facet_tallies`,
  services: `SELECT total FROM service_tallies`,
  // data_version moves when another connection commits (a crawl child), total_changes at a write through this one.
  changes: `SELECT (SELECT data_version FROM pragma_data_version()) AS elsewhere, total_changes() AS here`,
});

interface ListCache {
  /** The changes the counts were last cleared at, and when. */
  changes: Changes;
  clearedAtMs: number;
  counts: Map<string, Counts>;
  facetSizes: Map<string, number>;
  services: number;
}

/** Per database: counts per query and the sizes that plan queries, both cleared as COUNTS_MAX_LAG_MS says. */
const caches = new WeakMap<DB, ListCache>();
const MAX_CACHED_COUNTS = 2_000;
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
  const countSql = `SELECT count(*) AS total, coalesce(sum(${query.rank} = 0), 0) AS live,
    coalesce(sum(${query.dual}), 0) AS dual_rail ${query.countFrom}`;
  const countKey = `${countSql}\u0000${JSON.stringify(query.params)}`;
  let counts = cache.counts.get(countKey);
  if (!counts) {
    counts = cachedStatement(db, countSql).get(...query.params) as Counts;
    if (cache.counts.size >= MAX_CACHED_COUNTS) cache.counts.clear();
    cache.counts.set(countKey, counts);
  }
  const from = query.orderedFrom && walksInOrder(counts.total, page, cache.services) ? query.orderedFrom : query.pageFrom;
  const rows = cachedStatement(db, `SELECT ${SERVICE_COLUMNS} ${from} ORDER BY ${query.rank}, ${query.key} LIMIT ? OFFSET ?`)
    .all(...query.params, page.limit + 1, page.offset) as ServiceRow[];
  const more = rows.length > page.limit;
  return { counts, services: (more ? rows.slice(0, page.limit) : rows).map(toService), more };
}

/**
 * Whether a free-text page is cheaper found by walking every service in list order (the `services_order` index,
 * read in sequence) and keeping the matches, than by reading each match's row at random and sorting them all.
 * The walk reads about (offset + limit) / total of the index, so it wins when matches are common. On 100,000
 * services a step of the walk cost about 1/40 of a random row read (BENCHMARKS.md).
 * @example walksInOrder(1_200, { limit: 100, offset: 0 }, 100_000); // true: about 8,000 steps against 1,200 reads
 */
export function walksInOrder(total: number, page: ServicePage, services: number): boolean {
  return total * total * WALK_STEPS_PER_ROW_READ > (page.offset + page.limit) * services;
}

const WALK_STEPS_PER_ROW_READ = 40;

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
    changes, clearedAtMs: nowMs, counts: new Map(),
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

/**
 * Free-text search: every word must occur, as a substring, in the name, category, description or an endpoint.
 * Words of three or more characters are found through the trigram index; shorter ones, which it cannot hold, by a
 * caseless LIKE or GLOB over the same four columns of the rows it stores. `sql` finds every match at once; `rowSql` tests
 * one service, for a walk in list order that stops at a full page.
 */
function toSearch(q: string): { sql: string; rowSql: string; params: unknown[] } | null {
  const words = q.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const indexed = words.filter((word) => [...word].length >= TRIGRAM);
  const caseless = words.filter((word) => [...word].length < TRIGRAM).map(toCaseless);
  const tests = caseless.map(({ test }) => `(${SEARCHED_COLUMNS.map((column) => `${column} ${test}`).join(' OR ')})`);
  const testParams = caseless.flatMap(({ pattern }) => SEARCHED_COLUMNS.map(() => pattern));
  if (indexed.length > 0) {
    // The trigram match narrows first, so testing the short words on its matches is cheap either way.
    const match = indexed.map((word) => `"${word.replaceAll('"', '""')}"`).join(' AND ');
    const sql = `s.rowid IN (SELECT rowid FROM services_fts WHERE ${['services_fts MATCH ?', ...tests].join(' AND ')})`;
    return { sql, rowSql: sql, params: [match, ...testParams] };
  }
  return {
    sql: `s.rowid IN (SELECT rowid FROM services_fts WHERE ${tests.join(' AND ')})`,
    rowSql: `EXISTS (SELECT 1 FROM services_fts WHERE services_fts.rowid = s.rowid AND ${tests.join(' AND ')})`,
    params: testParams,
  };
}

/**
 * A test finding `word` anywhere in a column, in any case: LIKE for ASCII (several times faster on a scan), a
 * caseless GLOB for the rest.
 */
function toCaseless(word: string): { test: string; pattern: string } {
  if (/^[ -~]*$/.test(word)) return { test: `LIKE ? ESCAPE '\\'`, pattern: `%${word.replace(/[\\%_]/g, '\\$&')}%` };
  return { test: 'GLOB ?', pattern: toCaselessGlob(word) };
}

/**
 * A GLOB pattern finding `word` anywhere, in any case: each letter as a class of its cases (SQLite's LIKE folds
 * only ASCII), and GLOB's own characters as classes of one.
 * @example toCaselessGlob('üb*'); // '*[üÜ][bB][*]*'
 */
export function toCaselessGlob(word: string): string {
  const chars = [...word].map((char) => {
    const cases = new Set([char, char.toLowerCase(), char.toUpperCase()].filter((one) => [...one].length === 1));
    return cases.size > 1 || '*?['.includes(char) ? `[${[...cases].join('')}]` : char;
  });
  return `*${chars.join('')}*`;
}

const TRIGRAM = 3;
const SEARCHED_COLUMNS = ['name', 'category', 'description', 'endpoints'];
