/**
 * Free text for the list operation (data/service-list.ts): the SQL that finds a query's words in the services' text.
 */

/** A condition on the services `s`, with its parameters. */
export interface Condition {
  sql: string;
  params: unknown[];
}

/** The SQL of a search, as conditions on the services `s`. */
export interface Search {
  /** The matches (the services holding every word) at once. */
  sql: string;
  /** Tests one service, for a walk in list order that stops at a full page. */
  rowSql: string;
  params: unknown[];
  /**
   * The partial matches, holding all words but one (toLeastFound; null for one word): `relevance` lists them after
   * every match, in quality order, and they are not counted. `words` reads each word's services (their rowids in the
   * search index): a partial match is found by exactly `least` of them. `indexed`: whether the trigram index finds
   * each word (no stem under three characters), so reading a word's services reads its matches alone, not every row.
   */
  partial: { words: Condition[]; least: number; indexed: boolean } | null;
  /** The text score of a service `s` (higher is a better match: toTextScore), for `relevance`. */
  score: Condition;
  /** What bounds the score: each place a word can score in (ScorePlace). */
  scoreBound: ScorePlace[];
}

/** A place a word can score in: its stem in the names, or in the descriptions. */
export interface ScorePlace {
  /** A query of the search index for the services holding the stem there (LIMIT added to ask whether any does). */
  sql: string;
  params: unknown[];
  /** The most a word found there adds (WORD_WEIGHTS). */
  weight: number;
  /** The same as a full-text query with a column filter, to combine with others; null for a stem too short for the index. */
  match: string | null;
}

/**
 * Free-text search: every word (or "quoted phrase", as written) occurs, as a substring, in the name, category,
 * description or an endpoint; a word is looked for by its stem (toQueryWords), and words that carry no topic are
 * left out. Of two words or more, a service holding all but one of them is a partial match, which `relevance` lists
 * after every match (toLeastFound). Stems of three or more characters are found through the
 * trigram index; shorter ones, which it cannot hold, by a caseless LIKE or GLOB over the same four columns of the
 * rows it stores.
 */
export function toSearch(q: string): Search | null {
  const words = toQueryWords(q);
  if (words.length === 0) return null;
  const stems = words.map((word) => word.stem);
  // Scored on the services' own columns: the ranking reads each match's row once, for these and its quality keys.
  const score = toTextScore(words, { name: 's.name', description: 's.description' });
  const scoreBound = stems.flatMap((stem) => [
    toScorePlace(stem, 'name', WORD_WEIGHTS.nameWord),
    toScorePlace(stem, 'description', WORD_WEIGHTS.descriptionWord),
  ]);
  const matches = toEveryWord(stems);
  const least = toLeastFound(words.length);
  if (least === words.length) return { ...matches, partial: null, score, scoreBound };
  const found = stems.map((stem) => toFound(stem, SEARCHED_COLUMNS));
  return { ...matches, partial: { words: found, least, indexed: stems.every((stem) => [...stem].length >= TRIGRAM) }, score, scoreBound };
}

/**
 * How many of a query's topical words a service must hold to be listed in `relevance`: all of one word, all but one
 * of two or more.
 * Askers word a need in their own words and services in theirs ("sentiment analysis", "analyzes the sentiment of a
 * text"), so one word missing is common in a relevant service; two missing leave too little of the question.
 * @example toLeastFound(3) // 2
 */
export function toLeastFound(words: number): number {
  return words >= 2 ? words - 1 : words;
}

/**
 * At most how many partial matches a query has, from how many services hold each word: each holds all words but one,
 * so one of the two rarest at least.
 * @example toPartialBound([5_000, 40, 700]) // 740
 */
export function toPartialBound(wordSizes: readonly number[]): number {
  const [rarest = 0, next = 0] = [...wordSizes].sort((a, b) => a - b);
  return rarest + next;
}

/** The rowids of the search index holding one stem in one of `columns`. */
function toFound(stem: string, columns: readonly string[]): Condition {
  if ([...stem].length >= TRIGRAM) {
    const filter = columns.length < SEARCHED_COLUMNS.length ? `{${columns.join(' ')}} : ` : '';
    return { sql: 'SELECT rowid FROM services_fts WHERE services_fts MATCH ?', params: [`${filter}${toPhrase(stem)}`] };
  }
  const { test, pattern } = toCaseless(stem);
  return { sql: `SELECT rowid FROM services_fts WHERE ${columns.map((column) => `${column} ${test}`).join(' OR ')}`, params: columns.map(() => pattern) };
}

function toScorePlace(stem: string, column: string, weight: number): ScorePlace {
  const found = toFound(stem, [column]);
  return { ...found, weight, match: [...stem].length >= TRIGRAM ? found.params[0] as string : null };
}

const toPhrase = (stem: string) => `"${stem.replaceAll('"', '""')}"`;

/** The services holding every stem: the trigram match of the long ones narrows first, then the short ones are tested. */
function toEveryWord(stems: readonly string[]): Omit<Search, 'partial' | 'score' | 'scoreBound'> {
  const indexed = stems.filter((stem) => [...stem].length >= TRIGRAM);
  const caseless = stems.filter((stem) => [...stem].length < TRIGRAM).map(toCaseless);
  const tests = caseless.map(({ test }) => `(${SEARCHED_COLUMNS.map((column) => `${column} ${test}`).join(' OR ')})`);
  const testParams = caseless.flatMap(({ pattern }) => SEARCHED_COLUMNS.map(() => pattern));
  const where = [...(indexed.length > 0 ? ['services_fts MATCH ?'] : []), ...tests].join(' AND ');
  const params = [...(indexed.length > 0 ? [indexed.map(toPhrase).join(' AND ')] : []), ...testParams];
  const sql = `s.rowid IN (SELECT rowid FROM services_fts WHERE ${where})`;
  if (indexed.length > 0) return { sql, rowSql: sql, params };
  const rowSql = `EXISTS (SELECT 1 FROM services_fts WHERE services_fts.rowid = s.rowid AND ${where})`;
  return { sql, rowSql, params };
}

/** A word of a query: as written (lower-cased), and the stem it is matched by. */
export interface QueryWord {
  text: string;
  stem: string;
}

/**
 * The words a query is matched and ranked by: each word with its stem (toStem; a "quoted phrase" is its own stem),
 * without the words that carry no topic (STOP_WORDS) unless the query holds nothing else. People and agents ask in
 * sentences ("scrape a web page", "verify an email address"), and a service says "scraping" or "verification".
 * @example toQueryWords('Verify an "email address"') // [{ text: 'verify', stem: 'verif' }, { text: 'email address', stem: 'email address' }]
 */
export function toQueryWords(q: string): QueryWord[] {
  const phrases = new Set([...q.toLowerCase().matchAll(/"([^"]*)"?/g)].map((match) => match[1]!.trim().replace(/\s+/g, ' ')));
  const words = toWords(q).map((text) => ({ text, stem: phrases.has(text) ? text : toStem(text) }));
  const topical = words.filter((word) => phrases.has(word.text) || !STOP_WORDS.has(word.text));
  return topical.length > 0 ? topical : words;
}

/** Lucene's English stop words: a query is neither narrowed nor ranked by them. */
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on',
  'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);

/** English endings a stem drops, longest first; a stem keeps at least STEM_MIN letters. */
const SUFFIXES = ['ations', 'ation', 'ings', 'ing', 'ies', 'ers', 'er', 'es', 'ed', 's', 'e', 'y'];
const STEM_MIN = 4;

/**
 * The stem of a plain lower-case word: the first ending of SUFFIXES it has whose removal leaves STEM_MIN letters or
 * more, so `scrape` finds "scraping" and "scraper", `verify` "verification", `currency` "currencies". Anything but
 * letters a-z (`x402`, `json-rpc`) is its own stem.
 * @example toStem('rates') // 'rate'
 */
export function toStem(word: string): string {
  if (!/^[a-z]+$/.test(word)) return word;
  const suffix = SUFFIXES.find((ending) => word.endsWith(ending) && word.length - ending.length >= STEM_MIN);
  return suffix ? word.slice(0, -suffix.length) : word;
}

/** How much one word adds to the text score where it is found: in the name above the description, whole above prefix. */
export const WORD_WEIGHTS = { nameWord: 4, namePrefix: 3, descriptionWord: 2, descriptionPrefix: 1 };

/**
 * The text score of a match, as SQL over its `name` and `description` columns: for each word, the weight of the best
 * place it is found as a whole word, or its stem as the start of one (WORD_WEIGHTS); a word found only inside another
 * word, a URL, the category or an endpoint adds nothing. So "web search" ranks above "research" for `search`.
 * @example toTextScore([{ text: 'search', stem: 'search' }], { name: 's.name', description: 's.description' }).params[1] // '*[^a-z0-9]search[^a-z0-9]*'
 */
export function toTextScore(words: readonly QueryWord[], columns: { name: string; description: string }): { sql: string; params: string[] } {
  const w = WORD_WEIGHTS;
  // instr first: most matches hold a word only in an endpoint or inside another word, and skip both GLOBs; a word
  // between spaces (instr again) is whole or a word start without the GLOB, which tries every position of the text.
  const place = (column: string, whole: number, prefix: number) => {
    const padded = `(' ' || lower(${column}) || ' ')`;
    return `CASE WHEN instr(lower(${column}), ?) = 0 THEN 0 WHEN instr(${padded}, ?) > 0 OR ${padded} GLOB ? THEN ${whole}`
      + ` WHEN instr(${padded}, ?) > 0 OR ${padded} GLOB ? THEN ${prefix} ELSE 0 END`;
  };
  const sql = words.map(() => `(${place(columns.name, w.nameWord, w.namePrefix)} + ${place(columns.description, w.descriptionWord, w.descriptionPrefix)})`);
  const params = words.flatMap(({ text, stem }) => {
    const whole = `*[^a-z0-9]${toGlobLiteral(text)}[^a-z0-9]*`;
    const prefix = `*[^a-z0-9]${toGlobLiteral(stem)}*`;
    const place = [stem, ` ${text} `, whole, ` ${stem}`, prefix];
    return [...place, ...place];
  });
  return { sql: `(${sql.join(' + ')})`, params };
}

/** A word as a GLOB pattern matching itself: GLOB's own characters as classes of one. */
const toGlobLiteral = (word: string) => word.replace(/[*?[]/g, '[$&]');

/**
 * The words of a query, lower-cased: each "quoted phrase" whole (an unclosed quote runs to the end), each other run
 * of characters between spaces; the quotes themselves are not searched for.
 * @example toWords('Weather "air quality" API') // ['weather', 'air quality', 'api']
 */
export function toWords(q: string): string[] {
  return [...q.toLowerCase().matchAll(/"([^"]*)"?|[^\s"]+/g)]
    .map((match) => (match[1] ?? match[0]).trim().replace(/\s+/g, ' '))
    .filter(Boolean);
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
