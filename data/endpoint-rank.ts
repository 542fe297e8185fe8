/**
 * A search of several words without a space, ranked in `relevance` order from its candidates (data/endpoint-words.ts)
 * with no order key read: the rarest word's reach holds each candidate's place in the quality order, its liveness
 * (the order's first key) and the rarest word's test and score; the other words are tested and scored here on the
 * kept texts (migration 022), each half once: a service's text once for all its candidates (a service has five
 * endpoints on average), an endpoint's own text only when the words' sets say it may hold one of them. The matches
 * are then ordered by score, and within a score by their place, which is what the relevance order's SQL answers.
 */
import { cachedStatement, type DB } from './db.ts';
import { RowidsBuilder, type Rowids } from './list-cache.ts';
import { OWN_WORDS, type Candidates } from './endpoint-words.ts';

/**
 * The most words besides the rarest a ranked search takes: each word's code takes two bits beside a candidate's
 * index in one number, which stays within a double's 53 bits up to 2^37 candidates; longer searches take the
 * relevance order's SQL (data/endpoint-list.ts).
 */
export const MAX_RANKED_WORDS = 8;

/**
 * A word's code on one half of an endpoint's text (its `text` and score `words`): 0 not in it, 1 in it, 2 starting a
 * word of it, 3 a whole word of it. A word without a space that starts a word of the half's words is in its text, so
 * over both halves the word is in the whole text when the greater code is not 0, and that code is its score
 * (WORD_TEST and WORD_SCORE in data/endpoint-words.ts).
 */
const halfCode = (text: string, words: string) => `(CASE WHEN instr(${text}, ?) = 0 THEN 0 WHEN instr(${words}, ' ' || ?) = 0 THEN 1
  WHEN instr(${words}, ' ' || ? || ' ') = 0 THEN 2 ELSE 3 END)`;
const codeParams = (word: string) => [word, word, word];

/** Each of `rowids` (a JSON array) as its index then every word's code on its half, in one number. */
const codesSql = (words: number, table: string, alias: string, key: string) =>
  `SELECT j.key * ${4 ** words} + ${Array.from({ length: words }, (_, k) => `${halfCode(`${alias}.text`, `${alias}.words`)} * ${4 ** k}`).join(' + ') || '0'}
    FROM json_each(?) j JOIN ${table} ${alias} ON ${alias}.${key} = j.value`;

/**
 * The matches of a search in `relevance` order and how many of them are live, from its `candidates` (candidatesOf
 * `rarest` and `others`); null when they are not ranked (a rarest word of too wide a reach). `words` are the
 * search's words, all without a space, at most MAX_RANKED_WORDS of them other than `rarest`.
 * @example rankedMatchesOf(db, candidatesOf(db, cache, 'volcano', ['reliable']), ['volcano', 'reliable'], 'volcano', ['reliable'])
 */
export function rankedMatchesOf(db: DB, candidates: Candidates, words: string[], rarest: string, others: string[]): { order: Rowids; live: number } | null {
  if (!candidates.ranked) return null;
  const rest = words.filter((word) => word !== rarest);
  const { codes: serviceCodes, of: serviceOf } = readServiceCodes(db, rest, candidates.services);
  const endpointCodes = readEndpointCodes(db, rest, others, candidates.rowids, candidates.own);
  const rarestTimes = words.length - rest.length;
  const count = candidates.rowids.length;
  const best = 3 * words.length;
  // Each match as (best - its score) then its place, in one number: ascending numbers are the order.
  const keys: number[] = [];
  let live = 0;
  for (let i = 0; i < count; i++) {
    const score = scoreOf(rest.length, endpointCodes[i]!, serviceCodes[serviceOf[i]!]!);
    if (score === null) continue;
    keys.push((best - score - rarestTimes * candidates.scores[i]!) * count + i);
    if (i < candidates.live) live++;
  }
  const order = new RowidsBuilder();
  for (const key of Float64Array.from(keys).sort()) order.push(candidates.rowids[key % count]!);
  return { order: order.done(), live };
}

/** The words' score over both halves' codes, or null when a word is in neither. */
function scoreOf(words: number, endpoint: number, service: number): number | null {
  let score = 0;
  for (let k = 0; k < words; k++) {
    const code = Math.max(endpoint % 4, service % 4);
    if (code === 0) return null;
    score += code;
    endpoint = Math.floor(endpoint / 4);
    service = Math.floor(service / 4);
  }
  return score;
}

/** The words' codes on each distinct service's text, and for each candidate the index of its service's. */
function readServiceCodes(db: DB, words: string[], services: number[]): { codes: Float64Array; of: Uint32Array } {
  const indexOf = new Map<number, number>();
  const of = new Uint32Array(services.length);
  for (let i = 0; i < services.length; i++) {
    let index = indexOf.get(services[i]!);
    if (index === undefined) indexOf.set(services[i]!, (index = indexOf.size));
    of[i] = index;
  }
  return { codes: readCodes(db, codesSql(words.length, 'service_texts', 'st', 'rowid'), words, [...indexOf.keys()]), of };
}

/**
 * The words' codes on each candidate's own text, read only for a candidate whose own text may hold one of them: a
 * word of `others` past OWN_WORDS, or not among them (too short to narrow), may be in any.
 */
function readEndpointCodes(db: DB, words: string[], others: string[], rowids: number[], own: number[]): Float64Array {
  let mask = 0;
  let always = false;
  for (const word of words) {
    const k = others.indexOf(word);
    if (k >= 0 && k < OWN_WORDS) mask |= 1 << k;
    else always = true;
  }
  const read = rowids.flatMap((_, i) => (always || (own[i]! & mask) !== 0 ? [i] : []));
  const codes = readCodes(db, codesSql(words.length, 'endpoint_texts', 't', 'search_rowid'), words, read.map((i) => rowids[i]!));
  const byCandidate = new Float64Array(rowids.length);
  for (let r = 0; r < read.length; r++) byCandidate[read[r]!] = codes[r]!;
  return byCandidate;
}

/** The words' codes on the texts of `rowids`, in their order (a text deleted since its rowid was read codes 0). */
function readCodes(db: DB, sql: string, words: string[], rowids: number[]): Float64Array {
  const codes = new Float64Array(rowids.length);
  if (rowids.length === 0) return codes;
  const span = 4 ** words.length;
  for (const packed of cachedStatement(db, sql).pluck().all(...words.flatMap(codeParams), JSON.stringify(rowids)) as number[]) {
    codes[Math.floor(packed / span)] = packed % span;
  }
  return codes;
}
