/**
 * A search of several words without a space, ranked in `relevance` order from its candidates (data/endpoint-words.ts)
 * with no order key read: the rarest word's reach holds each candidate's place in the quality order, its liveness
 * (the order's first key) and the rarest word's test and score; the other words are tested and scored here on the
 * kept texts (migration 022), each half once: a service's text once for all its candidates (a service has five
 * endpoints on average), an endpoint's own text only when the words' sets say it may hold one of them, and no text
 * whose code a search already learnt (LearntCodes: of a word too common to hold sets, or read on many texts, whose
 * half is then learnt whole in one pass). The matches are then ordered by score, and within a score by their place,
 * which is what the relevance order's SQL answers.
 */
import { cachedStatement, type DB } from './db.ts';
import { RowidsBuilder, type Rowids } from './list-cache.ts';
import { learntCodesOf, OWN_WORDS, textRowidsOf, type Candidates, type LearntHalf, type WordCache } from './endpoint-words.ts';

/**
 * The most words besides the rarest a ranked search takes: each reads its codes with a statement per half, and their
 * codes take two bits each of one number per candidate; longer searches take the relevance order's SQL
 * (data/endpoint-list.ts).
 */
export const MAX_RANKED_WORDS = 8;

/**
 * The kept texts of each half of an endpoint's text: its own, by `search_rowid`, and its service's, by rowid.
 * Each of `rowids` (a JSON array) as its index then a word's code on it, in one number. A word's code: 0 not in the
 * half's `text`, 1 in it, 2 starting a word of its `words`, 3 a whole word of them. A word without a space that
 * starts a word of the half's words is in its text, so over both halves the word is in the whole text when the
 * greater code is not 0, and that code is its score (WORD_TEST and WORD_SCORE in data/endpoint-words.ts).
 */
const CODE = `(CASE WHEN instr(x.text, ?) = 0 THEN 0 WHEN instr(x.words, ' ' || ?) = 0 THEN 1
  WHEN instr(x.words, ' ' || ? || ' ') = 0 THEN 2 ELSE 3 END)`;
const codeSql = (table: string, key: string) => `SELECT j.key * 4 + ${CODE} FROM json_each(?) j JOIN ${table} x ON x.${key} = j.value`;
const HALVES = { endpoints: codeSql('endpoint_texts', 'search_rowid'), services: codeSql('service_texts', 'rowid') };
/** The same of every text of a half in a range of rowids, each as its rowid then the code, in one number. */
const passSql = (table: string, key: string) => `SELECT x.${key} * 4 + ${CODE} FROM ${table} x WHERE x.${key} BETWEEN ? AND ?`;
const PASSES = { endpoints: passSql('endpoint_texts', 'search_rowid'), services: passSql('service_texts', 'rowid') };
type Half = keyof typeof HALVES;

/**
 * The matches of a search in `relevance` order and how many of them are live, from its `candidates` (candidatesOf
 * `rarest` and `others`); null when they are not ranked (a rarest word of too wide a reach). `words` are the
 * search's words, all without a space, at most MAX_RANKED_WORDS of them other than `rarest`.
 * @example rankedMatchesOf(db, cache, candidatesOf(db, cache, 'volcano', ['reliable']), ['volcano', 'reliable'], 'volcano', ['reliable'])
 */
export function rankedMatchesOf(db: DB, cache: WordCache, candidates: Candidates, words: string[], rarest: string, others: string[]): { order: Rowids; live: number } | null {
  if (!candidates.ranked) return null;
  const rest = words.filter((word) => word !== rarest);
  const count = candidates.rowids.length;
  const { services, of: serviceOf } = distinctServices(candidates.services);
  // Each candidate's and each service's codes for every word of `rest`, word k's in base 4's digit k.
  const endpointCodes = new Float64Array(count);
  const serviceCodes = new Float64Array(services.length);
  rest.forEach((word, k) => {
    const bit = others.indexOf(word);
    const unheld = candidates.unheld.includes(word);
    // The word's sets say which candidates' own texts may hold it: the others hold it in their services' text.
    const indexes = Array.from(unheld || bit < 0 || bit >= OWN_WORDS ? candidates.rowids.keys() : ownHolders(candidates.own, 1 << bit));
    const learns = unheld || readsMany(db, cache, 'services', services.length) || readsMany(db, cache, 'endpoints', indexes.length);
    const learnt = learntCodesOf(db, cache, word, false) ?? (learns ? learntCodesOf(db, cache, word) : undefined);
    addCodes(serviceCodes, services.keys(), readCodes(db, cache, 'services', word, services, learnt?.services), 4 ** k);
    addCodes(endpointCodes, indexes, readCodes(db, cache, 'endpoints', word, indexes.map((i) => candidates.rowids[i]!), learnt?.endpoints), 4 ** k);
  });
  const rarestTimes = words.length - rest.length;
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

/** The distinct services of the candidates, and for each candidate the index of its service among them. */
function distinctServices(of: number[]): { services: number[]; of: Uint32Array } {
  const indexOf = new Map<number, number>();
  const index = new Uint32Array(of.length);
  for (let i = 0; i < of.length; i++) {
    let at = indexOf.get(of[i]!);
    if (at === undefined) indexOf.set(of[i]!, (at = indexOf.size));
    index[i] = at;
  }
  return { services: [...indexOf.keys()], of: index };
}

/** The indexes of the candidates whose own text may hold the word of `bit` (candidatesOf's `own`). */
function* ownHolders(own: number[], bit: number): Generator<number> {
  for (let i = 0; i < own.length; i++) if ((own[i]! & bit) !== 0) yield i;
}

/** Adds each code read, times `digit`, to the codes at its index in `at`. */
function addCodes(codes: Float64Array, at: Iterable<number>, read: Uint8Array, digit: number): void {
  let r = 0;
  for (const index of at) codes[index]! += read[r++]! * digit;
}

/**
 * A word's second read of at least a hundredth of a half's texts (and WHOLE_PASS_MIN of them) while its codes are
 * kept learns them on the whole half in one pass: a text read by its rowid costs some 2 us (a page of the file each,
 * at 100,000 services), one in a pass some 0.3, and a word read on so many twice recurs with every topic; the pass
 * is then paid once, not by each pair. The first read only learns what it read, so words that do not recur before
 * the cache lets them go never pay a pass.
 */
const WHOLE_PASS_SHARE = 100;
const WHOLE_PASS_MIN = 64;
/** The rowids a pass reads with one statement, so that no more than this many numbers are held at once. */
const PASS_ROWIDS = 65_536;

function readsMany(db: DB, cache: WordCache, half: Half, rows: number): boolean {
  return rows >= WHOLE_PASS_MIN && rows * WHOLE_PASS_SHARE >= textRowidsOf(db, cache)[half];
}

/**
 * A word's code on the `half` texts of `rowids`, in their order (a text deleted since its rowid was read codes 0),
 * taken from `learnt` where it holds them and read from the texts else, and learnt there: by one pass over the
 * half at its second read of many (readsMany).
 */
function readCodes(db: DB, cache: WordCache, half: Half, word: string, rowids: ArrayLike<number>, learnt?: LearntHalf): Uint8Array {
  if (learnt && !learnt.whole && readsMany(db, cache, half, rowids.length) && ++learnt.manyReads > 1) learnWhole(db, half, word, learnt);
  const codes = new Uint8Array(rowids.length);
  const unread: number[] = [];
  for (let i = 0; i < rowids.length; i++) {
    const known = learnt?.codes[rowids[i]! - learnt.from];
    if (known) codes[i] = known - 1;
    else unread.push(i);
  }
  if (unread.length === 0) return codes;
  const read = cachedStatement(db, HALVES[half]).pluck().all(word, word, word, JSON.stringify(unread.map((i) => rowids[i]!))) as number[];
  for (const packed of read) {
    const i = unread[Math.floor(packed / 4)]!;
    codes[i] = packed % 4;
    const at = learnt ? rowids[i]! - learnt.from : -1;
    if (at >= 0 && at < learnt!.codes.length) learnt!.codes[at] = codes[i]! + 1;
  }
  return codes;
}

/** Learns the word's code on every text of the half its learnt codes cover, a range of rowids at a time. */
function learnWhole(db: DB, half: Half, word: string, learnt: LearntHalf): void {
  const last = learnt.from + learnt.codes.length - 1;
  for (let from = learnt.from; from <= last; from += PASS_ROWIDS) {
    const read = cachedStatement(db, PASSES[half]).pluck().all(word, word, word, from, Math.min(last, from + PASS_ROWIDS - 1)) as number[];
    for (const packed of read) learnt.codes[Math.floor(packed / 4) - learnt.from] = (packed % 4) + 1;
  }
  learnt.whole = true;
}
