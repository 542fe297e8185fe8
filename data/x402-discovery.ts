/**
 * The index as an x402 Bazaar (`/x402/discovery/resources`, `/x402/discovery/search`): every x402 endpoint whose last
 * check found a valid challenge, with that challenge's `accepts` as stated, filtered as the discovery API filters
 * (`type`, `payTo`, `scheme`, `network`, `extensions`) and by the words of a search; in id order, so offset paging is
 * stable. The answer's shapes are made in api/operations/x402-discovery.ts.
 *
 * At 100,000 services a few tens of thousands of half a million endpoints are listed, so the listing is walked from
 * their challenges by index (migration 023), never from every endpoint, and what the pages of one filter share (its
 * total, its few matches) is kept until a change.
 */
import { toCaip2, toChainName } from '../domain/chains.ts';
import type { Endpoint } from '../domain/schemas.ts';
import { cachedStatement, type DB } from './db.ts';
import { ENDPOINT_COLUMNS, ENDPOINT_JOINS, toEndpoint, type EndpointRow } from './endpoints.ts';
import { narrows, phraseOf, servicePhraseOf, testParams, WORD_TEST } from './endpoint-words.ts';
import { BudgetedCache, changeClearedCache, keepAtMost, toRowids, type Rowids } from './list-cache.ts';
import { toWords } from './search.ts';

export interface DiscoveryFilters {
  type?: string;
  payTo?: string;
  scheme?: string;
  network?: string;
  extensions?: string;
  query?: string;
}

/** One listed resource: its endpoint record, its challenge as stated and when, and its service's name. */
export interface DiscoveredResource {
  endpoint: Endpoint;
  x402Version: number;
  accepts: Array<Record<string, unknown>>;
  lastUpdated: string;
  serviceName: string;
}

const acceptsTest = (path: string, values: number) =>
  `EXISTS (SELECT 1 FROM json_each(l.accepts) a WHERE lower(json_extract(a.value, '${path}')) IN (${Array(values).fill('?').join(', ')}))`;

/** Where a network filter matches: as given, as its CAIP-2 id and as the index's chain name (v1 names are those). */
function networkNames(network: string): string[] {
  const chain = toChainName(network).toLowerCase();
  return [...new Set([network.toLowerCase(), chain, toCaip2(chain)?.toLowerCase() ?? chain])];
}

interface Where {
  sql: string[];
  params: unknown[];
  /** Whether a word is tested, which reads the kept search texts. */
  texts: boolean;
  /** A word few endpoints hold, whose endpoints by the full-text indexes are walked instead of every listed one. */
  rare?: string;
}

/**
 * A word of the search in an endpoint's whole search text: its own kept text, a space, its service's (migration
 * 022); so a word without a space is in one of the two.
 */
function pushWord(where: Where, word: string): void {
  where.texts = true;
  if (word.includes(' ')) {
    where.sql.push(`instr(t.text || ' ' || st.text, ?) > 0`);
    where.params.push(word);
  } else {
    where.sql.push(WORD_TEST);
    where.params.push(...testParams(word));
  }
}

/** The endpoint has an input description (its `extensions.bazaar`), read from an index of those only. */
const HAS_INPUT = `EXISTS (SELECT 1 FROM service_endpoints i INDEXED BY service_endpoints_with_input WHERE i.id = k.id AND i.input IS NOT NULL)`;

/** Every resource listed is an HTTP one, and the only extension it may carry is `bazaar`. */
const listsNone = (filters: DiscoveryFilters) => (filters.type !== undefined && filters.type.toLowerCase() !== 'http')
  || (filters.extensions !== undefined && filters.extensions.toLowerCase() !== 'bazaar');

function toWhere(db: DB, filters: DiscoveryFilters): Where {
  const where: Where = { sql: ['l.accepts IS NOT NULL', 'k.live = 1'], params: [], texts: false };
  const { sql, params } = where;
  if (filters.extensions !== undefined) sql.push(HAS_INPUT);
  if (filters.payTo !== undefined) {
    sql.push(acceptsTest('$.payTo', 1));
    params.push(filters.payTo.toLowerCase());
  }
  if (filters.scheme !== undefined) {
    sql.push(acceptsTest('$.scheme', 1));
    params.push(filters.scheme.toLowerCase());
  }
  if (filters.network !== undefined) {
    const names = networkNames(filters.network);
    sql.push(acceptsTest('$.network', names.length));
    params.push(...names);
  }
  const words = filters.query ? toWords(filters.query) : [];
  for (const word of words) pushWord(where, word);
  where.rare = words.length === 0 ? undefined : rarestWord(db, words, matchesOf(db, toWhere(db, {})).total);
  if (where.rare !== undefined) where.sql.unshift(`k.search_rowid IN (${WORD_ENDPOINTS})`);
  return where;
}

/**
 * A word's endpoints by the full-text indexes (`search_rowid`s): those whose own text holds it, and those of the
 * services whose name or description does; a superset of the endpoints whose whole text holds it. UNION ALL: an IN
 * holds each once anyway, and a count up to a bound stops there instead of first gathering every one to drop the
 * twice-found (it counts them twice, which errs on the side of walking every listed endpoint).
 */
const WORD_ENDPOINTS = `SELECT rowid FROM endpoints_fts WHERE endpoints_fts MATCH ?
  UNION ALL SELECT t.search_rowid FROM services_fts f JOIN endpoint_texts t ON t.service_rowid = f.rowid WHERE services_fts MATCH ?`;
/**
 * The rarest word of a search that the indexes find, when fewer endpoints hold it than are `listed`: walking its
 * endpoints then costs less than walking every listed one. Each word's endpoints are counted only up to that.
 */
function rarestWord(db: DB, words: string[], listed: number): string | undefined {
  const reach = (word: string) => kept(keptReaches(db), word, () => cachedStatement(db, `SELECT count(*) FROM (${WORD_ENDPOINTS} LIMIT ?)`)
    .pluck().get(phraseOf(word), servicePhraseOf(word), listed) as number);
  const reached = [...new Set(words.filter(narrows))].map((word) => ({ word, n: reach(word) })).sort((a, b) => a.n - b.n);
  return reached[0] !== undefined && reached[0].n < listed ? reached[0].word : undefined;
}

/**
 * The listed resources, walked by index (migration 023) without reading an endpoint's or a challenge's row unless a
 * filter asks for it: the challenges that stated x402 `accepts` (`l`), far fewer than the endpoints, in endpoint id
 * order, so a page needs no sort and stops once full; each one's endpoint liveness and search rowid (`k`); with
 * words, its kept search texts and its service's (`t`, `st`).
 */
const listedFrom = (where: Where) => `${where.rare === undefined ? EVERY_LISTED : RARE_WORD_LISTED}
  ${where.texts ? 'CROSS JOIN endpoint_texts t ON t.search_rowid = k.search_rowid CROSS JOIN service_texts st ON st.rowid = t.service_rowid' : ''}
  WHERE ${where.sql.join(' AND ')}`;
const EVERY_LISTED = `FROM endpoint_challenges l INDEXED BY endpoint_challenges_listed
  CROSS JOIN service_endpoints k INDEXED BY service_endpoints_listing ON k.id = l.endpoint_id`;
/** With a rare word, its endpoints (the index of every search key holds each one's liveness and id), then listed. */
const RARE_WORD_LISTED = `FROM service_endpoints k INDEXED BY service_endpoints_search_keys
  CROSS JOIN endpoint_challenges l INDEXED BY endpoint_challenges_listed ON l.endpoint_id = k.id`;
const paramsOf = (where: Where) => (where.rare === undefined ? where.params : [phraseOf(where.rare), servicePhraseOf(where.rare), ...where.params]);

/**
 * What the pages of one filter share: its total, and when it has few matches their `search_rowid`s in page order, so
 * a page of few matches scattered among every listed endpoint is read by its rowids, not by walking to them.
 */
interface Matches {
  total: number;
  rowids: Rowids | null;
}

/**
 * At most this many matches of a filter are kept (4 bytes each; every listed endpoint at 100,000 services, 14,500):
 * a page of kept matches is read by its rowids, where a page past the first walks every match before its offset.
 */
const MAX_KEPT_MATCHES = 32_768;
/** At most this many matches are kept over every filter (2 MB), whatever the filters asked. */
const MAX_KEPT_ROWIDS = 500_000;
/** At most this many filters' matches, and words' reaches, are kept between changes. */
const MAX_KEPT = 200;
/** Since the last change: each filter's matches (paging through a Bazaar asks the same total on each page). */
const keptMatches = changeClearedCache(() => new BudgetedCache<Matches>(MAX_KEPT, MAX_KEPT_ROWIDS));
/** Since the last change: each word's reach, counted up to the listed total. */
const keptReaches = changeClearedCache(() => new Map<string, number>());

const kept = <T>(held: Map<string, T>, key: string, find: () => T): T => held.get(key) ?? keepAtMost(held, key, find(), MAX_KEPT);

function matchesOf(db: DB, where: Where, keptAtMost = MAX_KEPT_MATCHES): Matches {
  const cache = keptMatches(db);
  const key = JSON.stringify([where, keptAtMost]);
  const held = cache.get(key);
  if (held) return held;
  const matches = readMatches(db, where, keptAtMost);
  return cache.keep(key, matches, matches.rowids?.length ?? 0);
}

function readMatches(db: DB, where: Where, keptAtMost: number): Matches {
  const few = cachedStatement(db, `SELECT k.search_rowid ${listedFrom(where)} ORDER BY l.endpoint_id LIMIT ?`)
    .pluck().all(...paramsOf(where), keptAtMost + 1) as number[];
  if (few.length <= keptAtMost) return { total: few.length, rowids: toRowids(few) };
  return { total: cachedStatement(db, `SELECT count(*) ${listedFrom(where)}`).pluck().get(...paramsOf(where)) as number, rowids: null };
}

const RESOURCE_COLUMNS = `ch.x402_version, ch.accepts, ch.seen_at, s.name, ${ENDPOINT_COLUMNS}`;
type ResourceRow = [x402_version: number, accepts: string, seen_at: string, service_name: string, ...endpoint: EndpointRow];

/**
 * A page of the discovered resources and how many match; the matches of a filter are kept when there are at most
 * `keptAtMost` (tests take both ways with a low one).
 * @example listDiscoveredResources(db, { scheme: 'exact' }, { limit: 20, offset: 0 })
 */
export function listDiscoveredResources(db: DB, filters: DiscoveryFilters, page: { limit: number; offset: number }, keptAtMost = MAX_KEPT_MATCHES): {
  total: number; resources: DiscoveredResource[];
} {
  if (listsNone(filters)) return { total: 0, resources: [] };
  const where = toWhere(db, filters);
  const matches = matchesOf(db, where, keptAtMost);
  const rows = (matches.rowids === null
    ? cachedStatement(db, `WITH page AS (SELECT l.endpoint_id AS id ${listedFrom(where)} ORDER BY l.endpoint_id LIMIT ? OFFSET ?)
      SELECT ${RESOURCE_COLUMNS} FROM page CROSS JOIN service_endpoints e ON e.id = page.id ${ENDPOINT_JOINS} ORDER BY page.id`)
      .raw().all(...paramsOf(where), page.limit, page.offset)
    : cachedStatement(db, `SELECT ${RESOURCE_COLUMNS} FROM json_each(?) page
      CROSS JOIN service_endpoints e INDEXED BY service_endpoints_search ON e.search_rowid = page.value ${ENDPOINT_JOINS} ORDER BY page.key`)
      .raw().all(JSON.stringify([...matches.rowids.subarray(page.offset, page.offset + page.limit)]))) as ResourceRow[];
  return {
    total: matches.total,
    resources: rows.map(([x402Version, accepts, lastUpdated, serviceName, ...endpoint]) => ({
      endpoint: toEndpoint(endpoint), x402Version, accepts: JSON.parse(accepts), lastUpdated, serviceName,
    })),
  };
}
