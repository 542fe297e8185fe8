/**
 * The list operation: one page of services matching the filters, in one of the list's orders (`quality`, the default;
 * `live`: live first then by id; `price`, `uptime`, `latency`, `newest`; `relevance` with free text), with counts over
 * all matches. Every order ends in the id, so it is total and offset paging never repeats or skips a service while
 * nothing is written.
 *
 * Facet filters read the facet table (`rail:x402`, `chain:base`, `asset:usdc`, `category:data`, `source:bazaar`,
 * `flag:wildcard_402`), driven by the rarest facet asked for; free text reads the trigram index (data/search.ts);
 * `max_price_usd`, `facilitator` and `flags=none` test each service. A page is read one of three ways:
 * - in `live` order driven by a facet, from the facet table's own order;
 * - when the matches are few, their order is read once and kept, and each page is read by rowid;
 * - else by walking the order's own index (migrations 009 and 018) and keeping the matches until the page is full.
 * `relevance` ranks its matches as far as the page needs (readRelevant), then reads its partial matches in quality
 * order. What every page of one query shares (its counts, a kept order or ranking), and each word's services, is
 * cached until a change through this connection, or for up to COUNTS_MAX_LAG_MS after a commit by another (a crawl
 * child): a page lists services as they are, in that order.
 */
import type { ServiceFilters, ServicePage, ServiceQuery } from '../domain/list-query.ts';
import type { Service, Sort } from '../domain/schemas.ts';
import { cachedStatement, preparedOnce, type DB } from './db.ts';
import { toFacets } from './facets.ts';
import { BudgetedCache, changeClearedCache, keepAtMost, RowidSet } from './list-cache.ts';
import { toQualityOrder } from './quality.ts';
import { toPartialBound, toSearch, type Condition, type ScorePlace } from './search.ts';
import { SERVICE_COLUMNS, toService, type ServiceRow } from './service-read.ts';


export interface ListServicesResult {
  counts: { total: number; live: number; dual_rail: number };
  services: Service[];
  /** Whether services follow this page: read with the page (or a kept order), since counts may lag (COUNTS_MAX_LAG_MS). */
  more: boolean;
  /** The order applied: `relevance` only with free text, else `quality`. */
  sort: Sort;
}

type Counts = ListServicesResult['counts'];

/** The quality keys (data/quality.ts): the default order, and what `relevance` ranks by after the text. */
const QUALITY_ORDER = toQualityOrder('s');

/** Each order but relevance: its ORDER BY over the services `s`, and the index that reads it without a sort. */
const ORDERS: Record<Exclude<Sort, 'relevance'>, { by: string; index: string }> = {
  quality: { by: QUALITY_ORDER, index: 'services_quality' },
  live: { by: 's.live_rank, s.id', index: 'services_order' },
  price: { by: 's.min_price_usd IS NULL, s.min_price_usd, s.id', index: 'services_min_price' },
  uptime: { by: 's.uptime_30d IS NULL, s.uptime_30d DESC, s.id', index: 'services_uptime' },
  latency: { by: 's.median_latency_ms_30d IS NULL, s.median_latency_ms_30d, s.id', index: 'services_latency' },
  newest: { by: 's.first_indexed DESC, s.id', index: 'services_newest' },
};

interface ListQuery {
  sort: Sort;
  /** The counts' SELECT (the facet table alone when it can answer). */
  countSql: string;
  countParams: unknown[];
  /**
   * For free text: each match's rowid, live rank and dual rail (LIMIT added). When the matches are few enough to keep
   * their order, the counts are taken from these rows and the order read among them, so the search index is asked once.
   * With several words, the matches are the services every word's services hold (`words`, wordRowids: read when the
   * index finds each word, `indexed`, else only when kept), and `among` reads the same of given rowids (a JSON array,
   * the first parameter) without asking the search index at all.
   */
  matched?: { sql: string; params: unknown[]; words: Condition[]; indexed: boolean; among: Condition };
  /**
   * Every match's rowid in the order, for a query that cannot read an index in its order: kept when the matches are
   * few (keepsMatchOrder).
   */
  order?: { sql: string; params: unknown[]; among: string };
  /** FROM ... WHERE ... and ORDER BY reading a page in order from an index (LIMIT and OFFSET added). */
  page: { from: string; by: string; params: unknown[] };
  /** For `relevance`, how its matches are ranked and its partial matches read (readRelevant). */
  relevance?: Relevance;
}

/**
 * The `relevance` order: the matches by text score, then the quality keys; then the partial matches (data/search.ts)
 * in quality order. The matches are ranked at once when they are few (`ranked`), else only as far as the page needs:
 * `walked` reads them in quality order with their scores, and the walk stops once the page's worth hold the best score
 * any match can have (`scoreBound`), since no service after them in that order can come before them.
 */
interface Relevance {
  /** The query's key among kept rankings. */
  key: string;
  /**
   * Every match ranked; `among` ranks given rowids (a JSON array, the first parameter, then `params` of the score);
   * `counted` ranks those of given rowids the other filters keep, with each one's live rank and dual rail to count them.
   */
  ranked: { sql: string; params: unknown[]; among: Condition; counted: Condition };
  walked: { sql: string; params: unknown[] };
  /** The same walk over the services the search index finds in a full-text query given last (the best score's places). */
  walkedAmong: { sql: string; params: unknown[] };
  scoreBound: ScorePlace[];
  /**
   * When the query has partial matches (data/search.ts): each word's services (`words`, found by exactly `least` of
   * them); the services the other filters keep, walked in quality order (`walk`: their rowids); and the page of given
   * rowids (a JSON array, the first parameter) the filters keep, sorted in quality order (`held`: LIMIT, OFFSET added).
   */
  partial?: { words: Condition[]; least: number; walk: Condition; held: Condition };
}

/** The first matches in `relevance` order: all of them (`complete`), or at least as many as some page asked. */
interface Ranking {
  rowids: number[];
  complete: boolean;
}

const statements = preparedOnce({
  facetSizes: `SELECT facet, size FROM facet_tallies`,
  services: `SELECT total FROM service_tallies`,
  inRowids: `SELECT ${SERVICE_COLUMNS} FROM services s WHERE s.rowid IN (SELECT value FROM json_each(?))`,
});

interface ListCache {
  /** Counts by query (filters), and kept orders by query and order. */
  counts: Map<string, Counts>;
  orders: Map<string, number[]>;
  /** Rankings in `relevance` order, by query. */
  rankings: Map<string, Ranking>;
  /**
   * The services holding a word, by its query: words recur across queries far more than whole queries do; kept under
   * MAX_WORD_ROWIDS of memory together, in 4-byte words.
   */
  wordRowids: BudgetedCache<RowidSet>;
  /** How many rowids the kept orders and rankings hold together. */
  orderedRowids: number;
  facetSizes: Map<string, number>;
  services: number;
}

/** What every page of one query shares. */
interface Matches {
  counts: Counts;
  /** For a query whose order is kept, the matches' rowids in that order. */
  order?: number[];
  /** The matches' rowids, when they were read now to count them (countMatches). */
  matched?: number[];
}

const MAX_CACHED_QUERIES = 2_000;
/** At most this many rowids are held in kept orders (about 4 MB), whatever the queries asked. */
const MAX_ORDERED_ROWIDS = 500_000;
/**
 * At most this many 4-byte words are held for the words' services (2 MB): a word's services take at most one bit a
 * service (12.5 KB at 100,000), so some hundreds of words.
 */
const MAX_WORD_ROWIDS = 500_000;


/**
 * @example listServices(db, { filters: { rail: 'x402', live: true }, page: { limit: 100, offset: 0 }, sort: 'price' });
 */
export function listServices(db: DB, query: ServiceQuery): ListServicesResult {
  const cache = getCache(db);
  const plan = toListQuery(query.filters, query.sort, cache.facetSizes);
  const { counts, order, matched } = readMatches(db, cache, plan);
  const { rows, more } = plan.relevance ? readRelevant(db, cache, plan.relevance, { total: counts.total, matched }, query.page)
    : order ? readInOrder(db, order, query.page) : readPage(db, plan, query.page);
  return { counts, services: rows.map(toService), more, sort: plan.sort };
}

/** A query's counts, and its order when it keeps one: cached, or read now and cached. */
function readMatches(db: DB, cache: ListCache, plan: ListQuery): Matches {
  const countKey = `${plan.countSql}\u0000${JSON.stringify(plan.countParams)}`;
  let counts = cache.counts.get(countKey);
  let matched: number[] | undefined;
  if (!counts) {
    ({ counts, matched } = countMatches(db, cache, plan));
    keepAtMost(cache.counts, countKey, counts, MAX_CACHED_QUERIES);
  }
  if (!plan.order || !keepsMatchOrder(counts.total, cache.services)) return { counts, ...(matched ? { matched } : {}) };
  const orderKey = `${plan.sort}\u0000${countKey}`;
  let order = cache.orders.get(orderKey);
  if (!order) {
    order = matched ? readAmong(db, { sql: plan.order.among, params: [] }, matched)
      : cachedStatement(db, plan.order.sql).pluck().all(...plan.order.params) as number[];
    keep(cache, cache.orders, orderKey, order, order.length);
  }
  return { counts, order };
}

/**
 * A query's counts. Free text reads its matches' rows up to the most whose order is kept: when they are no more, the
 * counts are taken from them and their rowids returned, so ordering them asks the search index no second time;
 * else, as for every other query, they are counted.
 */
function countMatches(db: DB, cache: ListCache, plan: ListQuery): { counts: Counts; matched?: number[] } {
  if (plan.matched) {
    const most = Math.floor(cache.services / ORDER_KEPT_SHARE);
    const { sql, params, words, indexed, among } = plan.matched;
    const held = heldByAll(db, cache, words, indexed);
    // Few held by every word, in `relevance`: read once, in their ranking, which counts them too.
    const ranked = held !== null && plan.relevance !== undefined && keepsMatchOrder(held.length, cache.services) ? plan.relevance.ranked.counted : null;
    const rows = (held === null ? cachedStatement(db, sql).raw().all(...params, most + 1)
      : held.length === 0 ? []
      : ranked ? cachedStatement(db, ranked.sql).raw().all(JSON.stringify(held), ...ranked.params)
      : cachedStatement(db, among.sql).raw().all(JSON.stringify(held), ...among.params, most + 1)) as Array<[number, number, number]>;
    if (ranked && plan.relevance) keep(cache, cache.rankings, plan.relevance.key, { rowids: rows.map(([rowid]) => rowid), complete: true }, rows.length);
    if (keepsMatchOrder(rows.length, cache.services)) {
      const counts = { total: rows.length, live: 0, dual_rail: 0 };
      for (const [, liveRank, dualRail] of rows) {
        if (liveRank === 0) counts.live++;
        counts.dual_rail += dualRail;
      }
      return { counts, matched: rows.map(([rowid]) => rowid) };
    }
  }
  return { counts: cachedStatement(db, plan.countSql).get(...plan.countParams) as Counts };
}

/** Given rowids in an order's SELECT (`among`: their JSON array its first parameter). */
function readAmong(db: DB, among: { sql: string; params: unknown[] }, rowids: number[]): number[] {
  if (rowids.length === 0) return [];
  return cachedStatement(db, among.sql).pluck().all(JSON.stringify(rowids), ...among.params) as number[];
}

/** Keeps an order or ranking, first letting go of every kept one when they hold too many. */
function keep<T>(cache: ListCache, kept: Map<string, T>, key: string, value: T, rowids: number): void {
  if (kept.size >= MAX_CACHED_QUERIES || cache.orderedRowids + rowids > MAX_ORDERED_ROWIDS) {
    cache.orders.clear();
    cache.rankings.clear();
    cache.orderedRowids = 0;
  }
  kept.set(key, value);
  cache.orderedRowids += rowids;
}

/** One page in `relevance` order: the ranked matches it covers, then the partial matches it reaches. */
function readRelevant(db: DB, cache: ListCache, relevance: Relevance, matches: MatchSet, page: ServicePage): PageRows {
  const needed = page.offset + page.limit + 1;
  const ranking = rank(db, cache, relevance, matches, needed);
  const matched = readInOrder(db, ranking.rowids, page);
  if (!relevance.partial || ranking.rowids.length >= needed) return matched;
  const limit = page.limit - matched.rows.length;
  const offset = Math.max(0, page.offset - ranking.rowids.length);
  const rows = readPartial(db, cache, relevance.partial, limit + 1, offset);
  return { rows: [...matched.rows, ...rows.slice(0, limit)], more: rows.length > limit };
}

/**
 * Up to `count` partial matches in quality order, after the first `offset`. Few (toPartialBound, keepsMatchOrder)
 * are found among the two rarest words' services (each partial match holds one of them), read by rowid and sorted
 * (NOT INDEXED: the quality index would walk every service to find them); many are met soon on a walk of the quality
 * index, each service tested against every word's services.
 */
function readPartial(db: DB, cache: ListCache, partial: NonNullable<Relevance['partial']>, count: number, offset: number): ServiceRow[] {
  const words = partial.words.map((word) => wordRowids(db, cache, word));
  const isPartial = (rowid: number) => words.reduce((found, rowids) => found + (rowids.has(rowid) ? 1 : 0), 0) === partial.least;
  if (keepsMatchOrder(toPartialBound(words.map((rowids) => rowids.size)), cache.services)) {
    const [rarest, next] = [...words].sort((a, b) => a.size - b.size) as [RowidSet, RowidSet];
    const found = [...rarest.filter(isPartial), ...next.filter((rowid) => !rarest.has(rowid) && isPartial(rowid))];
    if (found.length === 0) return [];
    return cachedStatement(db, partial.held.sql).all(JSON.stringify(found), ...partial.held.params, count, offset) as ServiceRow[];
  }
  const walked: number[] = [];
  let skipped = 0;
  for (const rowid of cachedStatement(db, partial.walk.sql).pluck().iterate(...partial.walk.params) as Iterable<number>) {
    if (!isPartial(rowid)) continue;
    if (skipped < offset) skipped++;
    else if (walked.push(rowid) >= count) break;
  }
  return readInOrder(db, walked, { offset: 0, limit: walked.length }).rows;
}

/**
 * The services holding every word of several, by rowid, from each word's services: kept, or read now and kept when the
 * index finds each word (`indexed`; a short word's would be read from every row); null for one word, or when a word's
 * are neither. Words recur across searches far more than whole searches do, and the index's match of two words walks
 * the commoner word's services (every one of 100,000 for `agent`) at each new search.
 */
function heldByAll(db: DB, cache: ListCache, words: Condition[], indexed: boolean): number[] | null {
  const kept = words.map((word) => (indexed ? wordRowids(db, cache, word) : cache.wordRowids.get(toWordKey(word))));
  if (kept.length === 0 || kept.some((rowids) => rowids === undefined)) return null;
  const [rarest, ...others] = (kept as RowidSet[]).sort((a, b) => a.size - b.size);
  return rarest!.filter((rowid) => others.every((rowids) => rowids.has(rowid)));
}

const toWordKey = (word: Condition) => `${word.sql}\u0000${JSON.stringify(word.params)}`;

/** The services holding a word, by rowid: kept, or read now and kept. */
function wordRowids(db: DB, cache: ListCache, word: Condition): RowidSet {
  const key = toWordKey(word);
  const kept = cache.wordRowids.get(key);
  if (kept) return kept;
  const read = cachedStatement(db, word.sql).pluck().all(...word.params) as number[];
  const rowids = RowidSet.of(read.sort((a, b) => a - b));
  return cache.wordRowids.keep(key, rowids, rowids.memoryWords);
}

/** How many matches a query has, and their rowids when they were read with its counts. */
interface MatchSet {
  total: number;
  matched?: number[] | undefined;
}

/** The matches in `relevance` order, at least `needed` of them (or all): kept, or ranked now and kept. */
function rank(db: DB, cache: ListCache, relevance: Relevance, matches: MatchSet, needed: number): Ranking {
  const kept = cache.rankings.get(relevance.key);
  if (kept && (kept.complete || kept.rowids.length >= needed)) return kept;
  const { ranked } = relevance;
  const ranking = !keepsMatchOrder(matches.total, cache.services) ? walkRanking(db, relevance, needed) : {
    rowids: matches.matched ? readAmong(db, ranked.among, matches.matched)
      : cachedStatement(db, ranked.sql).pluck().all(...ranked.params) as number[],
    complete: true,
  };
  keep(cache, cache.rankings, relevance.key, ranking, ranking.rowids.length);
  return ranking;
}

/**
 * The first `needed` matches in `relevance` order, read in quality order: each is put with the others of its score,
 * and the walk stops when the best score any match can have holds `needed` of them; or all matches, ranked, when it
 * reaches the end.
 */
function walkRanking(db: DB, relevance: Relevance, needed: number): Ranking {
  const places = relevance.scoreBound.filter((place) => cachedStatement(db, `${place.sql} LIMIT 1`).get(...place.params) !== undefined);
  const best = places.reduce((sum, place) => sum + place.weight, 0);
  // First among the services that hold every word in every place the best score needs: they alone can reach it.
  if (places.length > 0 && places.every((place) => place.match !== null)) {
    const among = cachedStatement(db, relevance.walkedAmong.sql).raw()
      .iterate(...relevance.walkedAmong.params, places.map((place) => place.match).join(' AND ')) as Iterable<[number, number]>;
    const first: number[] = [];
    for (const [rowid, score] of among) {
      if (score >= best) first.push(rowid);
      if (first.length >= needed) return { rowids: first, complete: false };
    }
  }
  const byScore: number[][] = Array.from({ length: best + 1 }, () => []);
  const walk = cachedStatement(db, relevance.walked.sql).raw().iterate(...relevance.walked.params) as Iterable<[number, number]>;
  for (const [rowid, score] of walk) {
    const same = byScore[Math.min(score, best)]!;
    same.push(rowid);
    if (score >= best && same.length >= needed) return { rowids: same, complete: false };
  }
  return { rowids: byScore.reverse().flat(), complete: true };
}

/**
 * Whether a query keeps its matches' order, so each page is read by rowid: when they are at most a twentieth of the
 * services (5,000 of 100,000). Reading and sorting them all costs a random row read each, about what the walk in list
 * order costs for its first page; commoner matches fill a page within a few times its length of the walk, so they walk.
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

/** One page read in order from an index, with one row more to tell whether more follow. */
function readPage(db: DB, plan: ListQuery, page: ServicePage): PageRows {
  const rows = cachedStatement(db, `SELECT ${SERVICE_COLUMNS} ${plan.page.from} ORDER BY ${plan.page.by} LIMIT ? OFFSET ?`)
    .all(...plan.page.params, page.limit + 1, page.offset) as ServiceRow[];
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}

/** Per database: what every page of a query shares, and the sizes that plan queries (data/list-cache.ts). */
const getCache = changeClearedCache((db): ListCache => {
  const s = statements(db);
  const sizes = s.facetSizes.all() as Array<{ facet: string; size: number }>;
  return {
    counts: new Map(), orders: new Map(), rankings: new Map(), wordRowids: new BudgetedCache(MAX_CACHED_QUERIES, MAX_WORD_ROWIDS), orderedRowids: 0,
    facetSizes: new Map(sizes.map((row) => [row.facet, row.size])), services: s.services.pluck().get() as number,
  };
});

/** The facet keys the filters ask for (data/facets.ts). */
function toFilterFacets(filters: ServiceFilters): string[] {
  return toFacets({
    rails: filters.rail ? [filters.rail] : [],
    chains: filters.chain ? [filters.chain] : [],
    assets: filters.asset ? [filters.asset] : [],
    category: filters.category ?? null,
    sources: filters.source ? [filters.source] : [],
    flags: filters.flag ? [filters.flag] : [],
  });
}

interface Where {
  sql: string[];
  params: unknown[];
}

function toListQuery(filters: ServiceFilters, sort: Sort, facetSizes: Map<string, number>): ListQuery {
  const facets = toFilterFacets(filters).sort((a, b) => (facetSizes.get(a) ?? 0) - (facetSizes.get(b) ?? 0));
  const search = filters.q ? toSearch(filters.q) : null;
  const applied: Sort = sort === 'relevance' && search === null ? 'quality' : sort;
  const rowTests: Where = { sql: [], params: [] };
  if (filters.max_price_usd !== undefined) pushTo(rowTests, 's.min_price_usd <= ?', filters.max_price_usd);
  if (filters.facilitator) pushTo(rowTests, 'instr(lower(s.facilitator), ?) > 0', filters.facilitator);
  if (filters.no_flags) pushTo(rowTests, `s.flags = '[]'`);

  /** The conditions, for services whose live rank and id are `rank` and `key`, testing `tested` facets and `text`. */
  const conditions = (rank: string, key: string, tested: string[], text: Condition | null): Where => {
    const where: Where = { sql: [], params: [] };
    if (filters.live !== undefined) pushTo(where, `${rank} = ?`, filters.live ? 0 : 1);
    // The search comes before the other tests, so a walk passes over most services on the match alone.
    if (text) pushTo(where, text.sql, ...text.params);
    where.sql.push(...rowTests.sql);
    where.params.push(...rowTests.params);
    for (const facet of tested) {
      pushTo(where, `EXISTS (SELECT 1 FROM service_facets f WHERE f.facet = ? AND f.live_rank = ${rank} AND f.service_id = ${key})`, facet);
    }
    return where;
  };

  // With free text the matches drive (or a walk in order) and every facet is tested per service: a facet driving
  // beside the matches makes SQLite probe each of its rows once per match.
  const driving = search ? undefined : facets[0];
  let countSql: string;
  let countParams: unknown[];
  let matches: { from: string; params: unknown[] };
  if (driving !== undefined) {
    const where = conditions('f0.live_rank', 'f0.service_id', facets.slice(1), null);
    const clause = toClause(['f0.facet = ?', ...where.sql]);
    const params = [driving, ...where.params];
    // CROSS JOIN keeps the facet's rows the outer loop whatever the order asked.
    matches = { from: `FROM service_facets f0 CROSS JOIN services s ON s.id = f0.service_id${clause}`, params };
    const countFrom = rowTests.sql.length > 0 ? matches.from : `FROM service_facets f0${clause}`;
    countSql = toCountSql('f0.live_rank', 'f0.dual_rail', countFrom);
    countParams = params;
  } else {
    const where = conditions('s.live_rank', 's.id', facets, search && { sql: search.sql, params: search.params });
    matches = { from: `FROM services s${toClause(where.sql)}`, params: where.params };
    countSql = toCountSql('s.live_rank', 's.dual_rail', matches.from);
    countParams = where.params;
  }

  const filtered = conditions('s.live_rank', 's.id', facets, null);
  const matchedColumns = 'SELECT s.rowid, s.live_rank, s.dual_rail';
  const matched = search ? {
    sql: `${matchedColumns} ${matches.from} LIMIT ?`,
    params: matches.params,
    words: search.partial?.words ?? [],
    indexed: search.partial?.indexed ?? false,
    among: { sql: `${matchedColumns} FROM services s NOT INDEXED${toClause([AMONG_ROWIDS, ...filtered.sql])} LIMIT ?`, params: filtered.params },
  } : undefined;
  if (applied === 'relevance') {
    const text = search!;
    const conditionsOf = (sql: string, params = text.params) => conditions('s.live_rank', 's.id', facets, { sql, params });
    const ranked = conditionsOf(text.sql);
    const walked = conditionsOf(text.rowSql);
    const quality = `FROM services s INDEXED BY services_quality`;
    const walk = (where: Where) => `SELECT s.rowid, ${text.score.sql} AS score ${quality}${toClause(where.sql)} ORDER BY ${QUALITY_ORDER}`;
    const among = `s.rowid IN (SELECT rowid FROM services_fts WHERE services_fts MATCH ?)`;
    const relevance: Relevance = {
      key: `${countSql}\u0000${JSON.stringify(countParams)}`,
      ranked: {
        sql: `SELECT s.rowid FROM services s${toClause(ranked.sql)} ORDER BY ${text.score.sql} DESC, ${QUALITY_ORDER}`,
        params: [...ranked.params, ...text.score.params],
        among: { sql: `${AMONG} ORDER BY ${text.score.sql} DESC, ${QUALITY_ORDER}`, params: text.score.params },
        counted: {
          sql: `SELECT s.rowid, s.live_rank, s.dual_rail FROM services s NOT INDEXED${toClause([AMONG_ROWIDS, ...filtered.sql])}
            ORDER BY ${text.score.sql} DESC, ${QUALITY_ORDER}`,
          params: [...filtered.params, ...text.score.params],
        },
      },
      walked: { sql: walk(walked), params: [...text.score.params, ...walked.params] },
      walkedAmong: { sql: walk({ sql: [...walked.sql, among], params: [] }), params: [...text.score.params, ...walked.params] },
      scoreBound: text.scoreBound,
      ...(text.partial ? {
        partial: {
          ...text.partial,
          walk: { sql: `SELECT s.rowid ${quality}${toClause(filtered.sql)} ORDER BY ${QUALITY_ORDER}`, params: filtered.params },
          held: {
            sql: `SELECT ${SERVICE_COLUMNS} FROM services s NOT INDEXED${toClause([AMONG_ROWIDS, ...filtered.sql])} ORDER BY ${QUALITY_ORDER} LIMIT ? OFFSET ?`,
            params: filtered.params,
          },
        },
      } : {}),
    };
    const page = { from: matches.from, by: QUALITY_ORDER, params: matches.params };
    return { sort: applied, countSql, countParams, ...(matched ? { matched } : {}), relevance, page };
  }
  const { by, index } = ORDERS[applied];
  if (applied === 'live' && driving !== undefined) {
    return { sort: applied, countSql, countParams, page: { from: matches.from, by: 'f0.live_rank, f0.service_id', params: matches.params } };
  }
  const walk = conditions('s.live_rank', 's.id', facets, search && { sql: search.rowSql, params: search.params });
  const page = { from: `FROM services s INDEXED BY ${index}${toClause(walk.sql)}`, by, params: walk.params };
  const selective = search !== null || driving !== undefined || rowTests.sql.length > 0;
  const order = selective ? { sql: `SELECT s.rowid ${matches.from} ORDER BY ${by}`, params: matches.params, among: `${AMONG} ORDER BY ${by}` } : undefined;
  return { sort: applied, countSql, countParams, ...(matched ? { matched } : {}), ...(order ? { order } : {}), page };
}

/**
 * The services whose rowids a JSON array (the first parameter) holds, ORDER BY to add. NOT INDEXED: they are read by
 * rowid and sorted, never found by walking an order's index past every other service.
 */
const AMONG_ROWIDS = 's.rowid IN (SELECT value FROM json_each(?))';
const AMONG = `SELECT s.rowid FROM services s NOT INDEXED WHERE ${AMONG_ROWIDS}`;

const toCountSql = (rank: string, dual: string, from: string) =>
  `SELECT count(*) AS total, coalesce(sum(${rank} = 0), 0) AS live, coalesce(sum(${dual}), 0) AS dual_rail ${from}`;

function pushTo(where: Where, sql: string, ...params: unknown[]): void {
  where.sql.push(sql);
  where.params.push(...params);
}

const toClause = (where: string[]): string => (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '');
