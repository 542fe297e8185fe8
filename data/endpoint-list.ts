/**
 * The endpoint list (`GET /api/v1/endpoints`): one page of endpoint records matching the filters, in one of its
 * orders, with counts over every match. Every order ends in the endpoint id, so offset paging never repeats or skips
 * one while nothing is written. An endpoint's terms are its standing offers (its last valid challenge's, else its
 * directories') plus the terms its directories list; its price is `min_usd` (data/endpoints.ts).
 *
 * What the list filters, counts and orders by is kept on each endpoint row by triggers (migration 021): its liveness
 * and latency, its service's quality keys, its terms. So:
 * - counts of no filter, one term (`rail`, `chain`, `asset`, `scheme`) or `max_price_usd` alone, each with or
 *   without `live`, are read from tallies; any other filter counts its matches on the endpoint rows, with no join
 *   (and the service's text for `q`);
 * - a page is read by walking the order's index (`quality`, `price`, `latency`) until it is full, or, when the
 *   matches are few (a twentieth of the endpoints) or found by `q`, from their order read once and kept.
 * What every page of one query shares (its counts, a kept order) is cached until a change through this connection,
 * or for up to COUNTS_MAX_LAG_MS after a commit by another, as the services list's (data/list-cache.ts).
 */
import type { EndpointFilters, EndpointQuery } from '../domain/endpoint-query.ts';
import type { EndpointItem, EndpointSort } from '../domain/schemas.ts';
import { cachedStatement, preparedOnce, type DB } from './db.ts';
import { ENDPOINT_COLUMNS, ENDPOINT_JOINS, ENDPOINT_TEXT, toEndpoint, type EndpointRow } from './endpoints.ts';
import { toWords } from './search.ts';
import { BudgetedCache, changeClearedCache, keepAtMost, RowidsBuilder, toRowids, type Rowids } from './list-cache.ts';
import { rankedMatchesOf, MAX_RANKED_WORDS } from './endpoint-rank.ts';
import { type Candidates, candidatesOf, narrows, newWordCache, phraseOf, scoreParams, servicePhraseOf, testParams, WORD_SCORE, WORD_TEST, type WordCache } from './endpoint-words.ts';

export interface ListEndpointsResult {
  counts: Counts;
  endpoints: EndpointItem[];
  more: boolean;
}

type Counts = { total: number; live: number };

/** The name and descriptions, padded and with punctuation as spaces, for whole-word and word-start matches. */
const WORDS = `(' ' || replace(replace(replace(lower(s.name || ' ' || coalesce(e.description, '') || ' ' || coalesce(s.description, '')), ',', ' '), '.', ' '), '-', ' ') || ' ')`;
/**
 * The quality keys (data/quality.ts) as kept on the endpoint row, written as migration 021's index holds them; with
 * `live` asked, every match shares the first, and leaving it out lets SQLite read the rest in the index's order.
 */
const serviceQualityOf = (row: string) => `${row}service_flagged, ${row}service_uptime_30d IS NULL, ${row}service_uptime_30d DESC, ${row}service_source_count DESC`;
const SERVICE_QUALITY = serviceQualityOf('e.');
const QUALITY = `e.live IS NOT 1, ${SERVICE_QUALITY}`;
const QUALITY_INDEX = 'service_endpoints_quality';

/** Each order but relevance: its ORDER BY over the endpoints `e`, and the index that reads it without a sort. */
export const ENDPOINT_ORDERS: Record<Exclude<EndpointSort, 'relevance'>, { by: string; index: string }> = {
  quality: { by: `${QUALITY}, e.id`, index: QUALITY_INDEX },
  price: { by: 'e.min_usd IS NULL, e.min_usd, e.id', index: 'service_endpoints_price' },
  latency: { by: 'e.latency_ms IS NULL, e.latency_ms, e.id', index: 'service_endpoints_latency' },
};

interface Where {
  sql: string[];
  params: unknown[];
}

function push(where: Where, sql: string, ...params: unknown[]): void {
  where.sql.push(sql);
  where.params.push(...params);
}

/** The filters kept as terms on each endpoint row (migration 021), with the prefix of their values. */
const TERM_FILTERS = ['rail', 'chain', 'asset', 'scheme'] as const;

/** Printable ASCII but `"` and `\`: what JSON writes as itself, whichever writer. */
const PLAIN_JSON_TEXT = /^[ !#-[\]-~]*$/;

/**
 * The endpoint holds `term` in its kept terms (a JSON array). A term that JSON writes as itself is first looked for
 * in quotes as text, which passes over most rows without reading their JSON; json_each decides.
 */
function pushTerm(where: Where, term: string): void {
  const held = 'EXISTS (SELECT 1 FROM json_each(e.terms) WHERE value = ?)';
  if (PLAIN_JSON_TEXT.test(term)) push(where, `(instr(e.terms, ?) > 0 AND ${held})`, `"${term}"`, term);
  else push(where, held, term);
}

/**
 * The filters as conditions, and apart from them the words of `q` as tests on each endpoint's whole text; the
 * search's candidates when the words' sets find them, and whether any filter but `q` was asked.
 */
function toWhere(db: DB, cache: EndpointCache, filters: EndpointFilters, words: string[], sort: EndpointSort): { where: Where; tests: string[]; narrowed: boolean; candidates: SearchWords | null; filtered: boolean } {
  const where: Where = { sql: [], params: [] };
  if (filters.service !== undefined) push(where, 'e.service_id = ?', filters.service);
  if (filters.live !== undefined) push(where, '(e.live IS NOT 1) = ?', filters.live ? 0 : 1);
  for (const name of TERM_FILTERS) if (filters[name] !== undefined) pushTerm(where, `${name}:${filters[name]}`);
  if (filters.max_price_usd !== undefined) push(where, 'e.min_usd <= ?', filters.max_price_usd);
  if (filters.has_input !== undefined) where.sql.push(filters.has_input ? 'e.input IS NOT NULL' : 'e.input IS NULL');
  // The facet table holds each service's flags (data/flags.ts), so the filter reads no JSON.
  if (filters.flag !== undefined) push(where, 'e.service_id IN (SELECT service_id FROM service_facets WHERE facet = ?)', `flag:${filters.flag}`);
  if (filters.no_flags) where.sql.push('e.service_flagged = 0');
  const filtered = where.sql.length > 0;
  const narrowed = pushWords(db, cache, where, words, sort);
  const candidates = where.params.find((param) => param instanceof SearchWords) ?? null;
  return { where, tests: words.map(() => `instr(${ENDPOINT_TEXT}, ?) > 0`), narrowed, candidates, filtered };
}

/** The shortest word the trigram indexes find (FTS5's trigram tokenizer): shorter ones are only tested row by row. */
const TRIGRAM = 3;
/** How many matches of a word each index counts when choosing the rarest: past it, a word is common enough. */
const RARITY_CAP = 2_000;
/**
 * Endpoints whose own text (endpoints_fts) or whose service's name or description (services_fts) holds a phrase, as
 * one set of `search_rowid`s: one IN of both reads each endpoint once, where an OR of the two tests reads it for each.
 * UNION ALL: the IN's set holds each once anyway, and a UNION would first fill a table of its own to drop the
 * duplicates (for `api`, 440,000 rowids: 4 MB more at the peak of the server's memory).
 */
const INDEXED_WORD = `e.search_rowid IN (SELECT rowid FROM endpoints_fts WHERE endpoints_fts MATCH ?
  UNION ALL SELECT search_rowid FROM service_endpoints WHERE service_id IN
    (SELECT id FROM services WHERE rowid IN (SELECT rowid FROM services_fts WHERE services_fts MATCH ?)))`;
/** A phrase's matches in one full-text index (`endpoints_fts` or `services_fts`), counted up to a bound given. */
const matchesUpTo = (index: string) => `(SELECT count(*) FROM (SELECT 1 FROM ${index} WHERE ${index} MATCH ? LIMIT ?))`;
/** A word's matches in each index, counted up to RARITY_CAP from the indexes alone. */
const MATCHES = `SELECT ${matchesUpTo('endpoints_fts')} AS endpoints, ${matchesUpTo('services_fts')} AS services`;

/**
 * The words of `q` as conditions narrowing the search before each word is tested on the whole text (toWhere), which
 * keeps the answer what the text says; the indexes narrow it (the planner cannot tell which word of a full-text match
 * is rare, and a common one would read a good share of every endpoint). With two words or more the indexes find, the
 * candidates are found from the words' sets before any row is read (data/endpoint-words.ts), unless even the rarest
 * is common; else the rarest word's matches are read. Whether the indexes narrowed it.
 */
function pushWords(db: DB, cache: EndpointCache, where: Where, words: string[], sort: EndpointSort): boolean {
  const byReach = (found: string[]) => found.map((word) => ({ word, n: reachOf(db, cache, word) })).sort((a, b) => a.n - b.n).map(({ word }) => word);
  const narrowing = [...new Set(words.filter(narrows))];
  const indexed = words.filter((word) => [...word].length >= TRIGRAM);
  const [rarest, ...others] = narrowing.length > 1 ? byReach(narrowing) : [];
  if (rarest !== undefined && others.length > 0 && !common(cache, reachOf(db, cache, rarest))) {
    push(where, 'e.search_rowid IN (SELECT value FROM json_each(?))', new SearchWords(rarest, others));
  } else if (indexed.length > 0) {
    const rarest = indexed.length > 1 ? byReach(indexed)[0]! : indexed[0]!;
    // Only the relevance order tests words on the kept texts (toRelevance); the others compute each row's whole text.
    const tested = sort === 'relevance' && !words.some(hasSpace) && heldByMost(db, cache, rarest);
    if (!tested) push(where, INDEXED_WORD, phraseOf(rarest), servicePhraseOf(rarest));
  }
  return indexed.length > 0;
}

/** The matches a word's indexes are counted up to, as a share of the endpoints and of the services: half of either. */
const MOST = 0.5;
const INDEX_MATCHES = { endpoints: `SELECT ${matchesUpTo('endpoints_fts')}`, services: `SELECT ${matchesUpTo('services_fts')}` };

/**
 * Whether a word common past RARITY_CAP is in the text of half the endpoints or of their services, or more (`api`:
 * 440,000 of 517,000): its index's matches then narrow nothing, and gathering them in the IN's set, a temporary
 * b-tree in memory, cost 4-6 MB at the server's peak and more time than testing every endpoint's kept texts
 * (toRelevance). Counted from the indexes up to half (at most some 25 ms), once a word and change.
 */
function heldByMost(db: DB, cache: EndpointCache, word: string): boolean {
  if (!common(cache, reachOf(db, cache, word))) return false;
  const held = cache.heldByMost.get(word);
  if (held !== undefined) return held;
  const reaches = (index: keyof typeof INDEX_MATCHES, phrase: string, half: number) =>
    (cachedStatement(db, INDEX_MATCHES[index]).pluck().get(phrase, half) as number) >= half;
  const services = Math.ceil(MOST * cache.services);
  const endpoints = Math.ceil(MOST * cache.endpoints);
  const most = reaches('services', servicePhraseOf(word), services) || reaches('endpoints', phraseOf(word), endpoints);
  return keepAtMost(cache.heldByMost, word, most, MAX_CACHED_QUERIES);
}

/**
 * Whether a word's reach is past what the indexes count (RARITY_CAP in both): it may reach most endpoints. When even
 * a search's rarest word is, its candidates would be most endpoints too, gathered in memory (440,000 for `api agent`,
 * 40 MB at the peak); the index's match of the rarest word, read inside SQLite, finds them with none of it.
 */
const common = (cache: EndpointCache, reach: number) => reach >= RARITY_CAP * (1 + cache.endpointsPerService);

/**
 * A parameter standing for a search's candidates (a JSON array of `search_rowid`s): found only when the matches are
 * read, not for a page whose query's matches are kept; its JSON (the words) keys the kept ones.
 */
class SearchWords {
  constructor(readonly rarest: string, readonly others: string[]) {}

  /** The candidates, found once for this request (not part of its JSON). */
  private found?: Candidates;

  candidates(db: DB, cache: EndpointCache): Candidates {
    this.found ??= candidatesOf(db, cache.words, this.rarest, this.others);
    return this.found;
  }

  toJSON() {
    return { rarest: this.rarest, others: this.others };
  }
}

/** The parameters as bound: each search's candidates found now. */
const bound = (db: DB, cache: EndpointCache, params: unknown[]) => params.map((param) =>
  param instanceof SearchWords ? JSON.stringify(param.candidates(db, cache).rowids) : param);

/**
 * About how many endpoints a word reaches: its matches in their own text, and a service's match reaches each of its
 * endpoints (as many as a service has on average: reading each matched service's own count would cost a row each).
 * Kept per word, since words recur across queries far more than whole queries do.
 */
function reachOf(db: DB, cache: EndpointCache, word: string): number {
  const reach = cache.wordReach.get(word);
  if (reach !== undefined) return reach;
  const found = cachedStatement(db, MATCHES).get(phraseOf(word), RARITY_CAP, servicePhraseOf(word), RARITY_CAP) as { endpoints: number; services: number };
  return keepAtMost(cache.wordReach, word, found.endpoints + found.services * cache.endpointsPerService, MAX_CACHED_QUERIES);
}

/**
 * The text score of `q` over `text` (WORDS, or a column holding it): per word, 3 for a whole word of the name or a
 * description, 2 for a word start, 1 else.
 */
function toScore(words: string[], text = WORDS): { sql: string; params: unknown[] } {
  const parts = words.map(() => `(CASE WHEN instr(${text}, ' ' || ? || ' ') > 0 THEN 3 WHEN instr(${text}, ' ' || ?) > 0 THEN 2 ELSE 1 END)`);
  return { sql: parts.join(' + '), params: words.flatMap((word) => [word, word]) };
}

/**
 * The counts read from a tally, when the filters are at most one term or a price ceiling, and `live`; else null.
 * `live` takes the tally's live endpoints (true) or the others (false).
 */
function readTally(db: DB, filters: EndpointFilters, words: string[]): Counts | null {
  const { live, ...rest } = filters;
  const asked = Object.entries(rest).filter(([, value]) => value !== undefined).map(([name]) => name);
  if (words.length > 0 || asked.length > 1) return null;
  const name = asked[0];
  let tally: Counts;
  if (name === 'max_price_usd') tally = statements(db).priceTally.get(filters.max_price_usd) as Counts;
  else if (name === undefined || (TERM_FILTERS as readonly string[]).includes(name)) {
    tally = statements(db).termTally.get(name === undefined ? '' : `${name}:${rest[name as keyof typeof rest]}`) as Counts;
  } else return null;
  if (live === undefined) return tally;
  return live ? { total: tally.live, live: tally.live } : { total: tally.total - tally.live, live: 0 };
}

/**
 * @example listEndpoints(db, { filters: { q: 'search', max_price_usd: 0.04 }, page: { limit: 20, offset: 0 }, sort: 'relevance' });
 */
export function listEndpoints(db: DB, query: EndpointQuery): ListEndpointsResult {
  const words = query.filters.q ? toWords(query.filters.q) : [];
  const cache = getCache(db);
  const { where, tests, narrowed, candidates, filtered } = toWhere(db, cache, query.filters, words, query.sort);
  const sort = query.sort === 'relevance' && words.length === 0 ? 'quality' : query.sort;
  const score = sort === 'relevance' ? toScore(words) : null;
  const clause = where.sql.length + tests.length > 0 ? ` WHERE ${[...where.sql, ...tests].join(' AND ')}` : '';
  const { service, flag, has_input } = query.filters;
  // Counting and ordering matches scan the quality index, which holds every key but the input, unless a service (or a
  // flag's services) finds them by its own index.
  const scanned = words.length === 0 && service === undefined && flag === undefined && has_input === undefined ? ` INDEXED BY ${QUALITY_INDEX}` : '';
  const ranked = score !== null && candidates !== null && !filtered && !words.some(hasSpace)
    && words.filter((word) => word !== candidates.rarest).length <= MAX_RANKED_WORDS ? { words, candidates } : null;
  const plan: Plan = {
    // The service is joined only for the text `q` reads.
    from: `FROM service_endpoints e${words.length > 0 ? ' JOIN services s ON s.id = e.service_id' : ''}${clause}`,
    scanned,
    params: [...where.params, ...words],
    by: score !== null ? `${score.sql} DESC, ${QUALITY}, e.id`
      : sort === 'quality' && query.filters.live !== undefined ? `${SERVICE_QUALITY}, e.id` : ENDPOINT_ORDERS[sort === 'relevance' ? 'quality' : sort].by,
    byParams: score?.params ?? [],
    index: sort === 'relevance' ? null : ENDPOINT_ORDERS[sort].index,
    searched: words.length > 0,
    // Only candidates the indexes found mostly match: each row's score text would be computed for every endpoint else.
    relevance: score !== null && narrowed ? toRelevance(where, words) : null,
    ranked,
  };
  const { counts, order } = readMatches(db, cache, plan, () => readTally(db, query.filters, words));
  const { limit, offset } = query.page;
  const rowids = order ? [...order.subarray(offset, offset + limit + 1)] : readWalk(db, cache, plan, limit + 1, offset);
  const rows = readPage(db, rowids.slice(0, limit));
  const endpoints = rows.map(([, name, live, flags, uptime_30d, ...row]): EndpointItem => {
    const endpoint = toEndpoint(row);
    const service = { id: endpoint.service_id, name, live: live === null ? null : live === 1, flags: JSON.parse(flags), uptime_30d };
    return { ...endpoint, service };
  });
  return { counts, endpoints, more: rowids.length > limit };
}

/** How one query finds its matches and orders them. */
interface Plan {
  /** FROM ... WHERE ... over the endpoints `e` (and their services `s` when searched). */
  from: string;
  /** ` INDEXED BY` the quality index when counting and ordering the matches read it alone, else ''. */
  scanned: string;
  params: unknown[];
  /** The ORDER BY, its parameters (the text score's), and the index that reads it without a sort (not `relevance`). */
  by: string;
  byParams: unknown[];
  index: string | null;
  /** Whether `q` finds the matches: they are read and ordered at once, which counts them too. */
  searched: boolean;
  /** For `relevance`: the matches' `search_rowid`s and liveness in order, each row's texts computed once (toRelevance). */
  relevance: { sql: string; params: unknown[] } | null;
  /**
   * For `relevance` of words without a space whose candidates the words' sets found, with no other filter and at most
   * MAX_RANKED_WORDS besides the rarest: the words and those candidates, ranked in memory from what their reach holds
   * (data/endpoint-rank.ts) in place of `relevance` when their rarest word's reach is ranked.
   */
  ranked: { words: string[]; candidates: SearchWords } | null;
}

const hasSpace = (word: string) => /\s/.test(word);

/** The quality keys (QUALITY) of the candidates' columns read by toRelevance. */
const CANDIDATE_QUALITY = `live IS NOT 1, ${serviceQualityOf('')}`;

/**
 * The matches of a search in `relevance` order. Words without a space are tested and scored on the texts kept for
 * each endpoint and service (migration 022), read by `search_rowid` with the order's keys from their index, so no
 * endpoint row and no text is read or computed twice; a phrase with a space could span the endpoint's and its
 * service's texts, so a search holding one computes each candidate's whole text (toComputedRelevance).
 */
function toRelevance(where: Where, words: string[]): { sql: string; params: unknown[] } {
  if (words.some(hasSpace)) return toComputedRelevance(where, words);
  return {
    sql: `SELECT e.search_rowid, e.live IS 1 FROM service_endpoints e INDEXED BY service_endpoints_search_keys
      JOIN endpoint_texts t ON t.search_rowid = e.search_rowid JOIN service_texts st ON st.rowid = t.service_rowid
      WHERE ${[...where.sql, ...words.map(() => WORD_TEST)].join(' AND ')}
      ORDER BY ${words.map(() => WORD_SCORE).join(' + ')} DESC, ${QUALITY}, e.id`,
    params: [...where.params, ...words.flatMap(testParams), ...words.flatMap(scoreParams)],
  };
}

/**
 * The same over each candidate's texts computed (ENDPOINT_TEXT and WORDS): SQLite computes an expression anew
 * wherever it is written (for each word, and in both arms of the score's CASE), but a subquery's columns once a row;
 * a subquery with a LIMIT is never flattened into the query reading it, so it runs as a co-routine yielding each
 * row's texts.
 */
function toComputedRelevance(where: Where, words: string[]): { sql: string; params: unknown[] } {
  const score = toScore(words, 'score_text');
  const candidates = `SELECT e.search_rowid, e.live, e.service_flagged, e.service_uptime_30d, e.service_source_count, e.id,
      ${ENDPOINT_TEXT} AS endpoint_text, ${WORDS} AS score_text
    FROM service_endpoints e JOIN services s ON s.id = e.service_id${where.sql.length > 0 ? ` WHERE ${where.sql.join(' AND ')}` : ''} LIMIT -1`;
  const tests = words.map(() => 'instr(endpoint_text, ?) > 0').join(' AND ');
  return {
    sql: `SELECT search_rowid, live IS 1 FROM (${candidates}) WHERE ${tests} ORDER BY ${score.sql} DESC, ${CANDIDATE_QUALITY}, id`,
    params: [...where.params, ...words, ...score.params],
  };
}

/** One page walked along the order's index, with one row more to tell whether more follow: their `search_rowid`s. */
function readWalk(db: DB, cache: EndpointCache, plan: Plan, limit: number, offset: number): number[] {
  const from = plan.index === null ? plan.from : indexedBy(plan.from, ` INDEXED BY ${plan.index}`);
  return cachedStatement(db, `SELECT e.search_rowid ${from} ORDER BY ${plan.by} LIMIT ? OFFSET ?`).pluck()
    .all(...bound(db, cache, plan.params), ...plan.byParams, limit, offset) as number[];
}

const indexedBy = (from: string, index: string) => from.replace('FROM service_endpoints e', `FROM service_endpoints e${index}`);

/** What every page of one query shares. */
interface Matches {
  counts: Counts;
  /**
   * When the query keeps its order: every match's `search_rowid` (unique, indexed) in it, not its id: 4 bytes a match
   * where an id string costs some 50, so the list's caches stay a small part of the server's memory.
   */
  order?: Rowids;
}

/**
 * A query's counts, and its order when it keeps one: cached, or read now and cached. Matches `q` finds are read in
 * order with their liveness, which counts them in the same pass; others are counted from a tally or on their rows,
 * and their order is kept when they are few.
 */
function readMatches(db: DB, cache: EndpointCache, plan: Plan, tally: () => Counts | null): Matches {
  const countKey = `${plan.from}\u0000${JSON.stringify(plan.params)}`;
  const orderKey = `${plan.by}\u0000${countKey}`;
  const counts = cache.counts.get(countKey);
  const order = cache.orders.get(orderKey);
  if (counts && (order || !keepsOrder(plan, counts, cache.endpoints))) return order ? { counts, order } : { counts };
  const { words, candidates } = plan.ranked ?? {};
  const ranked = candidates && rankedMatchesOf(db, cache.words, candidates.candidates(db, cache), words!, candidates.rarest, candidates.others);
  if (ranked) {
    const found = { total: ranked.order.length, live: ranked.live };
    remember(cache, countKey, found, orderKey, ranked.order);
    return { counts: found, order: ranked.order };
  }
  if (plan.searched) {
    const { sql, params } = plan.relevance ?? { sql: `SELECT e.search_rowid, e.live IS 1 ${plan.from} ORDER BY ${plan.by}`, params: [...plan.params, ...plan.byParams] };
    // Row by row: a common word matches most endpoints, and their rows held at once would cost the server a hundred MB.
    const rowids = new RowidsBuilder();
    let live = 0;
    for (const [rowid, isLive] of cachedStatement(db, sql).raw().iterate(...bound(db, cache, params)) as IterableIterator<[number, number]>) {
      rowids.push(rowid);
      live += isLive;
    }
    const found = { total: rowids.length, live };
    const ids = rowids.done();
    remember(cache, countKey, found, orderKey, ids);
    return { counts: found, order: ids };
  }
  const scan = indexedBy(plan.from, plan.scanned);
  const counted = counts ?? tally() ?? cachedStatement(db, `SELECT count(*) AS total, coalesce(sum(e.live IS 1), 0) AS live ${scan}`)
    .get(...plan.params) as Counts;
  if (!keepsOrder(plan, counted, cache.endpoints)) {
    remember(cache, countKey, counted);
    return { counts: counted };
  }
  const ids = toRowids(counted.total === 0 ? [] : cachedStatement(db, `SELECT e.search_rowid ${scan} ORDER BY ${plan.by}`).pluck().all(...plan.params, ...plan.byParams) as number[]);
  remember(cache, countKey, counted, orderKey, ids);
  return { counts: counted, order: ids };
}

/**
 * Whether a query keeps its matches' order: always when `q` found them (no index holds a search's order), else when
 * they are at most a twentieth of the endpoints, where walking the order's index would pass over many rows for each
 * match it keeps.
 */
function keepsOrder(plan: Plan, counts: Counts, endpoints: number): boolean {
  return plan.searched || counts.total * ORDER_KEPT_SHARE <= endpoints;
}

const ORDER_KEPT_SHARE = 20;

/** Keeps a query's counts, and its order unless it alone would take more than the orders' whole bound. */
function remember(cache: EndpointCache, countKey: string, counts: Counts, orderKey?: string, ids?: Rowids): void {
  keepAtMost(cache.counts, countKey, counts, MAX_CACHED_QUERIES);
  if (orderKey === undefined || ids === undefined || ids.length > MAX_KEPT_IDS) return;
  cache.orders.keep(orderKey, ids, ids.length);
}

const MAX_CACHED_QUERIES = 2_000;
/** At most this many rowids are held in kept orders (2-4 MB), whatever the queries asked. */
const MAX_KEPT_IDS = 500_000;

const statements = preparedOnce({
  termTally: `SELECT coalesce(sum(total), 0) AS total, coalesce(sum(live), 0) AS live FROM endpoint_tallies WHERE term = ?`,
  priceTally: `SELECT coalesce(sum(total), 0) AS total, coalesce(sum(live), 0) AS live FROM endpoint_price_tallies WHERE min_usd <= ?`,
  endpoints: `SELECT coalesce(sum(total), 0) FROM endpoint_tallies WHERE term = ''`,
  services: `SELECT total FROM service_tallies`,
});

interface EndpointCache {
  counts: Map<string, Counts>;
  /** Each query's order, when it keeps one (keepsOrder), under MAX_KEPT_IDS rowids together. */
  orders: BudgetedCache<Rowids>;
  /** How many endpoints and services there are, and how many endpoints a service has on average. */
  endpoints: number;
  services: number;
  endpointsPerService: number;
  /** About how many endpoints each word of `q` reaches (reachOf), and whether most of them (heldByMost). */
  wordReach: Map<string, number>;
  heldByMost: Map<string, boolean>;
  /** The words' sets that find a search's candidates (data/endpoint-words.ts). */
  words: WordCache;
}


/** Per database: what every page of a query shares, and the sizes that plan queries (data/list-cache.ts). */
const getCache = changeClearedCache((db): EndpointCache => {
  const s = statements(db);
  const endpoints = s.endpoints.pluck().get() as number;
  const services = s.services.pluck().get() as number;
  return {
    counts: new Map(), orders: new BudgetedCache(MAX_CACHED_QUERIES, MAX_KEPT_IDS), endpoints, services,
    endpointsPerService: services > 0 ? endpoints / services : 0, wordReach: new Map(), heldByMost: new Map(), words: newWordCache(),
  };
});

/** An endpoint of a page: its search rowid and what its record tells of its service, then the endpoint. */
type PageRow = [
  search_rowid: number, service_name: string, service_live: number | null, service_flags: string, service_uptime: number | null,
  ...endpoint: EndpointRow,
];

/** The endpoints of `rowids` (`search_rowid`s), in that order (one deleted since they were read is left out). */
function readPage(db: DB, rowids: number[]): PageRow[] {
  const rows = cachedStatement(db, `SELECT e.search_rowid, s.name, s.live, s.flags, s.uptime_30d, ${ENDPOINT_COLUMNS}
      FROM service_endpoints e ${ENDPOINT_JOINS} WHERE e.search_rowid IN (SELECT value FROM json_each(?))`)
    .raw().all(JSON.stringify(rowids)) as PageRow[];
  const byRowid = new Map(rows.map((row) => [row[0], row]));
  return rowids.map((rowid) => byRowid.get(rowid)).filter((row) => row !== undefined);
}
