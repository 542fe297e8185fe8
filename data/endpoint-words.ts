/**
 * The endpoints a search of several words may match, found from the full-text indexes' sets before any row is read
 * (data/endpoint-list.ts). An endpoint holds a word in its text when its own text (`endpoints_fts`) or its service's
 * name or description (`services_fts`) does; so the candidates are the rarest word's endpoints, each with its
 * service, kept when every other word's sets hold the endpoint or its service. Only the candidates' rows are then
 * read, tested on their whole text and ordered, which keeps the answer what the text says.
 *
 * A word narrows only when each index finds every endpoint whose text holds it: at least three characters (the
 * trigram tokenizer's shortest) and no space (a phrase could span the join of the endpoint's and the service's text,
 * which neither index holds). The trigram index folds case as `lower()` does and more, so it finds a superset.
 */
import { cachedStatement, type DB } from './db.ts';
import { RowidSet, RowidsBuilder, type Rowids } from './list-cache.ts';

/** A word's rowids in each index; null when it is too common to be worth holding. */
type WordSets = { endpoints: RowidSet; services: RowidSet } | null;

/** The endpoints holding a word (`search_rowid`s) and each one's service (its rowid), side by side. */
type Reach = { endpoints: Rowids; services: Rowids };

/** Each word's sets and reaches, least recently used first, and their size together in 4-byte words. */
export interface WordCache {
  held: Map<string, WordSets | Reach>;
  rowids: number;
}

export const newWordCache = (): WordCache => ({ held: new Map(), rowids: 0 });

/**
 * At most this many 4-byte words are held for words' sets (6 MB): some eighty words of a busy day's searches at
 * 100,000 services.
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
 * The endpoints holding a word with their services' rowids, both read from the kept search texts (migration 022) by
 * their rowids and index: no endpoint row (wide with schemas and offers) and no service row is read.
 */
const REACH_OF = `SELECT t.search_rowid, t.service_rowid FROM endpoints_fts f JOIN endpoint_texts t ON t.search_rowid = f.rowid
    WHERE endpoints_fts MATCH ?
  UNION SELECT t.search_rowid, t.service_rowid FROM services_fts f JOIN endpoint_texts t ON t.service_rowid = f.rowid
    WHERE services_fts MATCH ?`;

/**
 * The `search_rowid`s of the endpoints of `rarest` whose own text or service holds each of `others` by the indexes:
 * a superset of the endpoints whose text holds every word.
 * @example candidatesOf(db, cache, 'volcano', ['reliable']) // [1201, 1202, ...]
 */
export function candidatesOf(db: DB, cache: WordCache, rarest: string, others: string[]): number[] {
  const reach = reachOf(db, cache, rarest);
  const tests = others.map((word) => setsOf(db, cache, word)).filter((sets) => sets !== null);
  const found: number[] = [];
  for (let i = 0; i < reach.endpoints.length; i++) {
    const endpoint = reach.endpoints[i]!;
    const service = reach.services[i]!;
    if (tests.every((sets) => sets.endpoints.has(endpoint) || sets.services.has(service))) found.push(endpoint);
  }
  return found;
}

function setsOf(db: DB, cache: WordCache, word: string): WordSets {
  const key = `sets\u0000${word}`;
  const kept = recall(cache, key) as WordSets | undefined;
  if (kept !== undefined) return kept;
  const endpoints = cachedStatement(db, ENDPOINTS_OF).pluck().all(phraseOf(word)) as number[];
  const services = endpoints.length > MAX_WORD_ENDPOINTS ? []
    : cachedStatement(db, SERVICES_OF).pluck().all(servicePhraseOf(word)) as number[];
  const sets = endpoints.length > MAX_WORD_ENDPOINTS || services.length > MAX_WORD_SERVICES ? null
    : { endpoints: RowidSet.of(endpoints), services: RowidSet.of(services) };
  keep(cache, key, sets, sizeOf(sets));
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
  const reach = { endpoints: endpoints.done(), services: services.done() };
  keep(cache, key, reach, 2 * endpoints.length);
  return reach;
}

/** A kept entry, now the most recently used. */
function recall(cache: WordCache, key: string): WordSets | Reach | undefined {
  const kept = cache.held.get(key);
  if (kept === undefined) return undefined;
  cache.held.delete(key);
  cache.held.set(key, kept);
  return kept;
}

const wordsOf = (set: RowidSet | Rowids) => (set instanceof RowidSet ? set.memoryWords : set.length);
const sizeOf = (entry: WordSets | Reach) => (entry === null ? 0 : wordsOf(entry.endpoints) + wordsOf(entry.services));

/** Keeps an entry of `rowids` 4-byte words, letting go of the least recently used while they would take too many. */
function keep(cache: WordCache, key: string, entry: WordSets | Reach, rowids: number): void {
  if (rowids > MAX_WORD_ROWIDS / 4) return;
  for (const [oldest, kept] of cache.held) {
    if (cache.rowids + rowids <= MAX_WORD_ROWIDS) break;
    cache.held.delete(oldest);
    cache.rowids -= sizeOf(kept);
  }
  cache.held.set(key, entry);
  cache.rowids += rowids;
}
