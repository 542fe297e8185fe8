/**
 * The endpoint list (`GET /api/v1/endpoints`): one page of endpoint records matching the filters, in one of its
 * orders, with counts over every match. Every order ends in the endpoint id, so offset paging never repeats or skips
 * one while nothing is written. An endpoint's terms are its standing offers (its last valid challenge's, else its
 * directories') plus the terms its directories list; its price is `min_usd` (data/endpoints.ts).
 */
import type { EndpointFilters, EndpointQuery } from '../domain/endpoint-query.ts';
import type { EndpointItem, EndpointSort } from '../domain/schemas.ts';
import { cachedStatement, type DB } from './db.ts';
import { ENDPOINT_COLUMNS, ENDPOINT_JOINS, ENDPOINT_LIVE, ENDPOINT_TEXT, readMainCheck, toEndpoint, type EndpointRow } from './endpoints.ts';
import { toWords } from './search.ts';

export interface ListEndpointsResult {
  counts: { total: number; live: number };
  endpoints: EndpointItem[];
  more: boolean;
}

const LATENCY = `(CASE WHEN e.url = s.endpoint THEN s.median_latency_ms_30d ELSE c.latency_ms END)`;
const OFFERS = `json_each(coalesce(ch.offers, e.listed_offers))`;
/** The name and descriptions, padded and with punctuation as spaces, for whole-word and word-start matches. */
const WORDS = `(' ' || replace(replace(replace(lower(s.name || ' ' || coalesce(e.description, '') || ' ' || coalesce(s.description, '')), ',', ' '), '.', ' '), '-', ' ') || ' ')`;
const QUALITY = `coalesce(${ENDPOINT_LIVE}, 0) DESC, s.flags <> '[]', s.uptime_30d IS NULL, s.uptime_30d DESC, json_array_length(s.sources) DESC`;

const ORDERS: Record<Exclude<EndpointSort, 'relevance'>, string> = {
  quality: `${QUALITY}, e.id`,
  price: 'e.min_usd IS NULL, e.min_usd, e.id',
  latency: `${LATENCY} IS NULL, ${LATENCY}, e.id`,
};

interface Where {
  sql: string[];
  params: unknown[];
}

function push(where: Where, sql: string, ...params: unknown[]): void {
  where.sql.push(sql);
  where.params.push(...params);
}

/** An offer field or a listed term equal to `value` (lower-cased). */
const termTest = (offerPath: string, listed: string | null) =>
  `(EXISTS (SELECT 1 FROM ${OFFERS} o WHERE lower(json_extract(o.value, '${offerPath}')) = ?)`
  + (listed === null ? ')' : ` OR EXISTS (SELECT 1 FROM json_each(e.${listed}) t WHERE lower(t.value) = ?))`);

function toWhere(db: DB, filters: EndpointFilters, words: string[]): Where {
  const where: Where = { sql: [], params: [] };
  if (filters.service !== undefined) push(where, 'e.service_id = ?', filters.service);
  if (filters.live !== undefined) push(where, `coalesce(${ENDPOINT_LIVE}, 0) = ?`, filters.live ? 1 : 0);
  if (filters.rail !== undefined) push(where, termTest('$.rail', 'rails'), filters.rail, filters.rail);
  if (filters.chain !== undefined) push(where, termTest('$.chain', 'chains'), filters.chain, filters.chain);
  if (filters.asset !== undefined) push(where, termTest('$.asset.symbol', 'assets'), filters.asset, filters.asset);
  if (filters.scheme !== undefined) push(where, termTest('$.scheme', null), filters.scheme);
  if (filters.max_price_usd !== undefined) push(where, 'e.min_usd <= ?', filters.max_price_usd);
  if (filters.has_input !== undefined) where.sql.push(filters.has_input ? 'e.input IS NOT NULL' : 'e.input IS NULL');
  if (filters.flag !== undefined) push(where, `EXISTS (SELECT 1 FROM json_each(s.flags) f WHERE f.value = ?)`, filters.flag);
  if (filters.no_flags) where.sql.push(`s.flags = '[]'`);
  pushWords(db, where, words);
  return where;
}

/** The shortest word the trigram indexes find (FTS5's trigram tokenizer): shorter ones are only tested row by row. */
const TRIGRAM = 3;
/** How many matches of a word each index counts when choosing the rarest: past it, a word is common enough. */
const RARITY_CAP = 2_000;
const phraseOf = (word: string) => `"${word.replaceAll('"', '""')}"`;
const servicePhraseOf = (word: string) => `{name description} : ${phraseOf(word)}`;
/**
 * Endpoints whose own text (endpoints_fts) or whose service's name or description (services_fts) holds a phrase, as
 * one set of `search_rowid`s: a UNION reads each endpoint once, where an OR of the two tests reads it for each.
 */
const INDEXED_WORD = `e.search_rowid IN (SELECT rowid FROM endpoints_fts WHERE endpoints_fts MATCH ?
  UNION SELECT search_rowid FROM service_endpoints WHERE service_id IN
    (SELECT id FROM services WHERE rowid IN (SELECT rowid FROM services_fts WHERE services_fts MATCH ?)))`;
/** The endpoints a word reaches, its matches counted up to RARITY_CAP in each index: a service's match reaches all of its. */
const MATCHES = `SELECT (SELECT count(*) FROM (SELECT 1 FROM endpoints_fts WHERE endpoints_fts MATCH ? LIMIT ${RARITY_CAP}))
  + (SELECT coalesce(sum(endpoint_count), 0) FROM services
    WHERE rowid IN (SELECT rowid FROM services_fts WHERE services_fts MATCH ? LIMIT ${RARITY_CAP}))`;

/**
 * The words of `q` as conditions: the rarest word the trigram indexes can find narrows the search to its matches (the
 * planner cannot tell which word of a full-text match is rare, and a common one would read a good share of every
 * endpoint); every word is then tested on the whole text, which keeps the answer what the text says.
 */
function pushWords(db: DB, where: Where, words: string[]): void {
  const indexed = words.filter((word) => [...word].length >= TRIGRAM);
  const count = (word: string) => cachedStatement(db, MATCHES).pluck().get(phraseOf(word), servicePhraseOf(word)) as number;
  const rarest = indexed.length > 1 ? indexed.map((word) => ({ word, n: count(word) })).sort((a, b) => a.n - b.n)[0]!.word : indexed[0];
  if (rarest !== undefined) push(where, INDEXED_WORD, phraseOf(rarest), servicePhraseOf(rarest));
  for (const word of words) push(where, `instr(${ENDPOINT_TEXT}, ?) > 0`, word);
}

/** The text score of `q`: per word, 3 for a whole word of the name or a description, 2 for a word start, 1 else. */
function toScore(words: string[]): { sql: string; params: unknown[] } {
  const parts = words.map(() => `(CASE WHEN instr(${WORDS}, ' ' || ? || ' ') > 0 THEN 3 WHEN instr(${WORDS}, ' ' || ?) > 0 THEN 2 ELSE 1 END)`);
  return { sql: parts.join(' + '), params: words.flatMap((word) => [word, word]) };
}

/**
 * @example listEndpoints(db, { filters: { q: 'search', max_price_usd: 0.04 }, page: { limit: 20, offset: 0 }, sort: 'relevance' });
 */
export function listEndpoints(db: DB, query: EndpointQuery): ListEndpointsResult {
  const words = query.filters.q ? toWords(query.filters.q) : [];
  const where = toWhere(db, query.filters, words);
  const from = `FROM service_endpoints e ${ENDPOINT_JOINS}${where.sql.length > 0 ? ` WHERE ${where.sql.join(' AND ')}` : ''}`;
  const counts = cachedStatement(db, `SELECT count(*) AS total, coalesce(sum(coalesce(${ENDPOINT_LIVE}, 0) = 1), 0) AS live ${from}`)
    .get(...where.params) as ListEndpointsResult['counts'];
  const score = query.sort === 'relevance' && words.length > 0 ? toScore(words) : null;
  const by = score === null ? ORDERS[query.sort === 'relevance' ? 'quality' : query.sort] : `${score.sql} DESC, ${QUALITY}, e.id`;
  // The order is found on ids alone, so sorting many matches never carries their offers and schemas along.
  const ids = cachedStatement(db, `SELECT e.id ${from} ORDER BY ${by} LIMIT ? OFFSET ?`).pluck()
    .all(...where.params, ...(score?.params ?? []), query.page.limit + 1, query.page.offset) as string[];
  const rows = readPage(db, ids.slice(0, query.page.limit));
  const endpoints = rows.map((row): EndpointItem => ({
    ...toEndpoint(row, row.is_main === 1 ? readMainCheck(db, row.service_id) : null),
    service: {
      id: row.service_id, name: row.service_name, live: row.service_live === null ? null : row.service_live === 1,
      flags: JSON.parse(row.service_flags), uptime_30d: row.service_uptime,
    },
  }));
  return { counts, endpoints, more: ids.length > query.page.limit };
}

type PageRow = EndpointRow & { service_name: string; service_flags: string; service_uptime: number | null };

/** The endpoints of `ids`, in that order (one deleted since the ids were read is left out). */
function readPage(db: DB, ids: string[]): PageRow[] {
  const rows = cachedStatement(db, `SELECT ${ENDPOINT_COLUMNS}, s.name AS service_name, s.flags AS service_flags,
      s.uptime_30d AS service_uptime FROM service_endpoints e ${ENDPOINT_JOINS} WHERE e.id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(ids)) as PageRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
