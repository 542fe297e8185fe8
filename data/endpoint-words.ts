/**
 * The endpoints a search of several words may match, found from the full-text indexes' sets before any row is read
 * (data/endpoint-list.ts). An endpoint holds a word in its text when its own text (`endpoints_fts`) or its service's
 * name or description (`services_fts`) does; so the candidates are the rarest word's endpoints, each with its
 * service, kept when every other word's sets hold the endpoint or its service. Only the candidates' rows are then
 * read, tested on their whole text and ordered, which keeps the answer what the text says.
 *
 * The rarest word's endpoints, when at most MAX_RANKED_REACH, are read once (and kept) already tested on their kept
 * texts, scored, and in the quality order, so a search ranks its matches by score and then by their place in that
 * order, reading no order key (data/endpoint-rank.ts).
 *
 * A word narrows only when each index finds every endpoint whose text holds it: at least three characters (the
 * trigram tokenizer's shortest) and no space (a phrase could span the join of the endpoint's and the service's text,
 * which neither index holds). The trigram index folds case as `lower()` does and more, so it finds a superset.
 */
import { cachedStatement, type DB } from './db.ts';
import { RowidSet, RowidsBuilder, type Rowids } from './list-cache.ts';

/** A word's rowids in each index; null when it is too common to be worth holding. */
type WordSets = { endpoints: RowidSet; services: RowidSet } | null;

/**
 * What searches have read of a word's code (data/endpoint-rank.ts) on endpoints' own texts and services' texts, by
 * rowid less `from`: 0 not read yet, else the code + 1. Kept for a word too common to hold sets, or read on many texts
 * of a half: every search with it reads each of its candidates' texts, and such words recur with every topic (`api`
 * with `flight`, `hotel`...). `whole` once one pass over the half's texts learnt every code it covers.
 */
export interface LearntCodes {
  endpoints: LearntHalf;
  services: LearntHalf;
}

export interface LearntHalf {
  from: number;
  codes: Uint8Array;
  /** How many reads of many texts learnt here (data/endpoint-rank.ts `readsMany`): the second learns the half whole. */
  manyReads: number;
  whole: boolean;
}

/**
 * The endpoints holding a word (`search_rowid`s) and each one's service (its rowid), side by side; when `ranked`,
 * only those whose text holds it, in the quality order, with the word's score on each (WORD_SCORE), the first `live`
 * of them live (the order's first key).
 */
type Reach = { endpoints: Rowids; services: Rowids; ranked: { scores: Uint8Array; live: number } | null };

/**
 * A search's candidates; when `ranked` (its rarest word's reach was), in the quality order side by side with their
 * services' rowids, which other words each one's own text may hold (candidatesOf) and the rarest word's score on
 * each, the first `live` of them live.
 */
export interface Candidates {
  rowids: number[];
  services: number[];
  scores: number[];
  own: number[];
  live: number;
  ranked: boolean;
  /** The words of `others` too common to hold sets: any candidate's own text may hold them. */
  unheld: string[];
}

type Entry = WordSets | Reach | LearntCodes;

/**
 * Each word's sets, reaches and learnt codes, least recently used first, and their size together in 4-byte words; and
 * each kept text's greatest rowid and count, read once.
 */
export interface WordCache {
  held: Map<string, Entry>;
  rowids: number;
  texts?: TextRowids;
}

export const newWordCache = (): WordCache => ({ held: new Map(), rowids: 0 });

/**
 * At most this many 4-byte words are held for words' sets, reaches and learnt codes (6 MB): some eighty words of a
 * busy day's searches at 100,000 services.
 * The least recently used go first, since a search's rare word recurs in many searches.
 */
const MAX_WORD_ROWIDS = 1_500_000;
/**
 * A word found in more endpoints' own text or services than these does not narrow a search enough to be worth
 * reading its set (reading `api`'s 414,000 takes longer than testing the rare word's candidates on their text).
 */
const MAX_WORD_ENDPOINTS = 100_000;
const MAX_WORD_SERVICES = 100_000;

const TRIGRAM = 3;
/** Whether the indexes find every endpoint holding `word` (see above). */
export const narrows = (word: string): boolean => [...word].length >= TRIGRAM && !word.includes(' ');

/** A word as a full-text phrase, and as one in a service's name or description. */
export const phraseOf = (word: string) => `"${word.replaceAll('"', '""')}"`;
export const servicePhraseOf = (word: string) => `{name description} : ${phraseOf(word)}`;

const ENDPOINTS_OF = `SELECT rowid FROM endpoints_fts WHERE endpoints_fts MATCH ? ORDER BY rowid LIMIT ${MAX_WORD_ENDPOINTS + 1}`;
const SERVICES_OF = `SELECT rowid FROM services_fts WHERE services_fts MATCH ? ORDER BY rowid LIMIT ${MAX_WORD_SERVICES + 1}`;
/**
 * Whether an endpoint's text holds a word, over its kept texts `t` and its service's `st` (migration 022): a word
 * without a space is in the whole text when it is in either half, which a space joins.
 */
export const WORD_TEST = '(instr(t.text, ?) > 0 OR instr(st.text, ?) > 0)';
/**
 * A word's score on an endpoint, over the same texts' words: 3 for a whole word of the name or a description, 2 for
 * a word start, 1 else (data/endpoint-list.ts `toScore` on the whole text). A whole word starts a word, so the whole
 * is looked for only where a start was found.
 */
export const WORD_SCORE = `(CASE WHEN (instr(t.words, ' ' || ?) > 0 OR instr(st.words, ' ' || ?) > 0)
  THEN (CASE WHEN (instr(t.words, ' ' || ? || ' ') > 0 OR instr(st.words, ' ' || ? || ' ') > 0) THEN 3 ELSE 2 END) ELSE 1 END)`;
/** The parameters of WORD_TEST and WORD_SCORE for `word`. */
export const testParams = (word: string) => [word, word];
export const scoreParams = (word: string) => [word, word, word, word];

/** The keys of the quality order (data/endpoint-list.ts `ENDPOINT_ORDERS.quality`) as the search keys' index holds them. */
const QUALITY_ORDER = `e.live IS NOT 1, e.service_flagged, e.service_uptime_30d IS NULL, e.service_uptime_30d DESC,
  e.service_source_count DESC, e.id`;
/**
 * The endpoints holding a word with their services' rowids, both read from the kept search texts (migration 022) by
 * their rowids and index: no endpoint row (wide with schemas and offers) and no service row is read.
 */
const REACH_OF = `SELECT t.search_rowid, t.service_rowid FROM endpoints_fts f JOIN endpoint_texts t ON t.search_rowid = f.rowid
    WHERE endpoints_fts MATCH ?
  UNION SELECT t.search_rowid, t.service_rowid FROM services_fts f JOIN endpoint_texts t ON t.service_rowid = f.rowid
    WHERE services_fts MATCH ?`;
/**
 * A reach's endpoints (a JSON array) whose text holds the word, as their index in it with their liveness and the
 * word's score, in the quality order: tested and scored on the kept texts and ordered by the search keys' index.
 */
const RANKED_REACH = `SELECT j.key, e.live IS 1, ${WORD_SCORE}
  FROM json_each(?) j JOIN endpoint_texts t ON t.search_rowid = j.value JOIN service_texts st ON st.rowid = t.service_rowid
  JOIN service_endpoints e INDEXED BY service_endpoints_search_keys ON e.search_rowid = j.value
  WHERE ${WORD_TEST}
  ORDER BY ${QUALITY_ORDER}`;
/**
 * A reach of more endpoints is not ranked (its searches take the relevance statement, data/endpoint-list.ts): ranking
 * sorts it whole, and its search would hold its candidates and their codes in memory (some 1 MB a 20,000 of them).
 */
const MAX_RANKED_REACH = 50_000;

/**
 * The endpoints of `rarest`'s reach whose own text or service holds each of `others` by the indexes: a superset of
 * the endpoints whose text holds every word. When the reach is ranked, with each its service, and which of the first
 * OWN_WORDS of `others` its own text may hold: bit k for `others[k]`, set when the word's sets hold the endpoint or
 * the word is too common to hold sets (a word its own text does not hold is in its service's).
 * @example candidatesOf(db, cache, 'volcano', ['reliable']).rowids // [1202, 1201, ...]
 */
export function candidatesOf(db: DB, cache: WordCache, rarest: string, others: string[]): Candidates {
  const reach = reachOf(db, cache, rarest);
  const sets = others.map((word) => setsOf(db, cache, word));
  const unheld = others.filter((_, k) => sets[k] === null);
  const found: Candidates = { rowids: [], services: [], scores: [], own: [], live: 0, ranked: reach.ranked !== null, unheld };
  for (let i = 0; i < reach.endpoints.length; i++) {
    const endpoint = reach.endpoints[i]!;
    const service = reach.services[i]!;
    let own = 0;
    let held = true;
    for (let k = 0; k < sets.length && held; k++) {
      const word = sets[k]!;
      const inOwn = word === null || word.endpoints.has(endpoint);
      held = inOwn || word.services.has(service);
      if (inOwn && k < OWN_WORDS) own |= 1 << k;
    }
    if (!held) continue;
    found.rowids.push(endpoint);
    // What only ranking reads is gathered only for it: an unranked reach may hold most endpoints.
    if (reach.ranked === null) continue;
    found.services.push(service);
    found.own.push(own);
    found.scores.push(reach.ranked.scores[i]!);
    if (i < reach.ranked.live) found.live++;
  }
  return found;
}

/** The words whose bits in `own` a candidate carries (candidatesOf). */
export const OWN_WORDS = 16;

function setsOf(db: DB, cache: WordCache, word: string): WordSets {
  const key = `sets\u0000${word}`;
  const kept = recall(cache, key) as WordSets | undefined;
  if (kept !== undefined) return kept;
  const endpoints = cachedStatement(db, ENDPOINTS_OF).pluck().all(phraseOf(word)) as number[];
  const services = endpoints.length > MAX_WORD_ENDPOINTS ? []
    : cachedStatement(db, SERVICES_OF).pluck().all(servicePhraseOf(word)) as number[];
  const sets = endpoints.length > MAX_WORD_ENDPOINTS || services.length > MAX_WORD_SERVICES ? null
    : { endpoints: RowidSet.of(endpoints), services: RowidSet.of(services) };
  keep(cache, key, sets);
  return sets;
}

function reachOf(db: DB, cache: WordCache, word: string): Reach {
  const key = `reach\u0000${word}`;
  const kept = recall(cache, key) as Reach | undefined;
  if (kept !== undefined) return kept;
  // Row by row: the rarest word of a search may still reach most endpoints, whose rows held at once cost a hundred MB.
  const endpoints = new RowidsBuilder();
  const services = new RowidsBuilder();
  for (const [endpoint, service] of cachedStatement(db, REACH_OF).raw().iterate(phraseOf(word), servicePhraseOf(word)) as IterableIterator<[number, number]>) {
    endpoints.push(endpoint);
    services.push(service);
  }
  const found = { endpoints: endpoints.done(), services: services.done() };
  const reach = found.endpoints.length > MAX_RANKED_REACH ? { ...found, ranked: null } : ranked(db, word, found);
  keep(cache, key, reach);
  return reach;
}

/** A reach's endpoints whose text holds `word`, in the quality order, with the word's score on each. */
function ranked(db: DB, word: string, found: { endpoints: Rowids; services: Rowids }): Reach {
  const rows = cachedStatement(db, RANKED_REACH).raw()
    .all(...scoreParams(word), JSON.stringify([...found.endpoints]), ...testParams(word)) as Array<[number, number, number]>;
  const endpoints = new RowidsBuilder();
  const services = new RowidsBuilder();
  const scores = new Uint8Array(rows.length);
  let live = 0;
  rows.forEach(([index, isLive, score], i) => {
    endpoints.push(found.endpoints[index]!);
    services.push(found.services[index]!);
    scores[i] = score;
    live += isLive;
  });
  return { endpoints: endpoints.done(), services: services.done(), ranked: { scores, live } };
}

/** Each kept text's greatest rowid and count. */
const TEXT_ROWIDS = `SELECT (SELECT coalesce(max(search_rowid), 0) FROM endpoint_texts) AS endpointsMax,
  (SELECT count(*) FROM endpoint_texts) AS endpoints,
  (SELECT coalesce(max(rowid), 0) FROM service_texts) AS servicesMax, (SELECT count(*) FROM service_texts) AS services`;
type TextRowids = { endpointsMax: number; endpoints: number; servicesMax: number; services: number };

export const textRowidsOf = (db: DB, cache: WordCache): TextRowids =>
  (cache.texts ??= cachedStatement(db, TEXT_ROWIDS).get() as TextRowids);

/**
 * How many rowids, as a share of the texts, a word's learnt codes cover, counted down from the greatest: a write of a
 * service whose listing changed writes its endpoints anew, each taking the greatest `search_rowid` plus one, so the
 * rowids drift up and the oldest fall outside (read each time).
 */
const LEARNT_SPAN = 1.25;

/**
 * A word's learnt codes (LearntCodes), kept while the cache holds room: a byte per rowid of the newest 1.25 times
 * as many as there are texts (about 780 KB at 100,000 services), learnt as searches read their texts; undefined when
 * none are kept and `make` is false.
 * @example learntCodesOf(db, cache, 'api').endpoints.codes[1202 - from] // 4: `api` is a whole word of endpoint 1202's own text
 */
export function learntCodesOf(db: DB, cache: WordCache, word: string): LearntCodes;
export function learntCodesOf(db: DB, cache: WordCache, word: string, make: false): LearntCodes | undefined;
export function learntCodesOf(db: DB, cache: WordCache, word: string, make = true): LearntCodes | undefined {
  const key = `codes\u0000${word}`;
  const kept = recall(cache, key) as LearntCodes | undefined;
  if (kept !== undefined || !make) return kept;
  const texts = textRowidsOf(db, cache);
  const span = (max: number, count: number) => {
    const length = Math.min(max, Math.ceil(LEARNT_SPAN * count));
    return { from: max + 1 - length, codes: new Uint8Array(length), manyReads: 0, whole: false };
  };
  const learnt = { endpoints: span(texts.endpointsMax, texts.endpoints), services: span(texts.servicesMax, texts.services) };
  keep(cache, key, learnt);
  return learnt;
}

/** A kept entry, now the most recently used. */
function recall(cache: WordCache, key: string): Entry | undefined {
  const kept = cache.held.get(key);
  if (kept === undefined) return undefined;
  cache.held.delete(key);
  cache.held.set(key, kept);
  return kept;
}

const wordsOf = (set: RowidSet | Rowids | { codes: Uint8Array }) => (set instanceof RowidSet ? set.memoryWords
  : 'codes' in set ? set.codes.byteLength / 4 : set.byteLength / 4);
/** The 4-byte words an entry takes (a reach's scores, one byte each, a quarter word). */
const sizeOf = (entry: Entry) => (entry === null ? 0
  : wordsOf(entry.endpoints) + wordsOf(entry.services) + ('ranked' in entry && entry.ranked !== null ? Math.ceil(entry.ranked.scores.length / 4) : 0));

/** Keeps an entry, letting go of the least recently used while they would take too many 4-byte words. */
function keep(cache: WordCache, key: string, entry: Entry): void {
  const rowids = sizeOf(entry);
  if (rowids > MAX_WORD_ROWIDS / 4) return;
  for (const [oldest, kept] of cache.held) {
    if (cache.rowids + rowids <= MAX_WORD_ROWIDS) break;
    cache.held.delete(oldest);
    cache.rowids -= sizeOf(kept);
  }
  cache.held.set(key, entry);
  cache.rowids += rowids;
}
