/**
 * Free text for the list operation (data/service-list.ts): the SQL that finds a query's words in the services' text.
 */

/** The SQL of a search, as conditions on the services `s`. */
export interface Search {
  /** Finds every match at once. */
  sql: string;
  /** Tests one service, for a walk in list order that stops at a full page. */
  rowSql: string;
  params: unknown[];
  /**
   * With words the trigram index holds: a subquery of the matches' `rowid` and their FTS5 bm25 `score` (lower is a
   * better match), for `sort=relevance`; the same params. A query of short words only has none: every match is
   * found by LIKE or GLOB, with nothing to rank it by.
   */
  rankedSql?: string;
}

/**
 * Free-text search: every word (or "quoted phrase", as written) must occur, as a substring, in the name, category,
 * description or an endpoint. Words of three or more characters are found through the trigram index; shorter ones,
 * which it cannot hold, by a caseless LIKE or GLOB over the same four columns of the rows it stores.
 */
export function toSearch(q: string): Search | null {
  const words = toWords(q);
  if (words.length === 0) return null;
  const indexed = words.filter((word) => [...word].length >= TRIGRAM);
  const caseless = words.filter((word) => [...word].length < TRIGRAM).map(toCaseless);
  const tests = caseless.map(({ test }) => `(${SEARCHED_COLUMNS.map((column) => `${column} ${test}`).join(' OR ')})`);
  const testParams = caseless.flatMap(({ pattern }) => SEARCHED_COLUMNS.map(() => pattern));
  if (indexed.length > 0) {
    // The trigram match narrows first, so testing the short words on its matches is cheap either way.
    const match = indexed.map((word) => `"${word.replaceAll('"', '""')}"`).join(' AND ');
    const where = ['services_fts MATCH ?', ...tests].join(' AND ');
    const sql = `s.rowid IN (SELECT rowid FROM services_fts WHERE ${where})`;
    const rankedSql = `(SELECT rowid, bm25(services_fts) AS score FROM services_fts WHERE ${where})`;
    return { sql, rowSql: sql, params: [match, ...testParams], rankedSql };
  }
  return {
    sql: `s.rowid IN (SELECT rowid FROM services_fts WHERE ${tests.join(' AND ')})`,
    rowSql: `EXISTS (SELECT 1 FROM services_fts WHERE services_fts.rowid = s.rowid AND ${tests.join(' AND ')})`,
    params: testParams,
  };
}

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
