import type { DB } from '../db.ts';

/**
 * The texts a search of endpoints tests and scores (data/endpoint-list.ts), kept lower-cased and padded by triggers,
 * so a search reads them instead of computing them for each candidate:
 * - `endpoint_texts`, per endpoint (`search_rowid`): `text`, its description, URL and tags as the search tests them;
 *   `words`, its description with punctuation as spaces and padded, as the score reads it; and its service's rowid
 *   (indexed: a search finds a service's endpoints there without reading their rows);
 * - `service_texts`, per service (its rowid): the same of its name and description, held once for all its endpoints.
 * An endpoint's whole search text is its `text`, a space, its service's `text`; its score text is its service's
 * `words` and its own: a word without a space is in the whole when it is in either (a space joins them), and a
 * word or word start of the score text is one of either.
 * `service_endpoints_search_keys` holds, by `search_rowid`, every key a search orders its matches by, so the
 * candidates are ordered without reading their endpoint rows (wide with schemas and offers).
 * Replicas serve a public copy, which has no triggers: both tables are copied (data/public-copy.ts).
 */

/** `column` lower-cased, with `,` `.` `-` as spaces: the score's words. */
const wordsOf = (column: string) => `replace(replace(replace(lower(${column}), ',', ' '), '.', ' '), '-', ' ')`;
const endpointText = (e: string) => `lower(coalesce(${e}.description, '') || ' ' || ${e}.url || ' ' || ${e}.tags)`;
const endpointWords = (e: string) => `' ' || ${wordsOf(`coalesce(${e}.description, '')`)} || ' '`;
const serviceText = (s: string) => `lower(${s}.name || ' ' || coalesce(${s}.description, ''))`;
const serviceWords = (s: string) => `' ' || ${wordsOf(`${s}.name`)} || ' ' || ${wordsOf(`coalesce(${s}.description, '')`)} || ' '`;

/** Writes the texts of the endpoint row `e` (NEW), when it has its search_rowid. */
const writeEndpoint = (e: string) => `DELETE FROM endpoint_texts WHERE search_rowid = ${e}.search_rowid;
  INSERT INTO endpoint_texts (search_rowid, service_rowid, text, words)
    SELECT ${e}.search_rowid, s.rowid, ${endpointText(e)}, ${endpointWords(e)} FROM services s
    WHERE s.id = ${e}.service_id AND ${e}.search_rowid IS NOT NULL;`;
const writeService = (s: string) => `DELETE FROM service_texts WHERE rowid = ${s}.rowid;
  INSERT INTO service_texts (rowid, text, words) VALUES (${s}.rowid, ${serviceText(s)}, ${serviceWords(s)});`;

export const up = `
CREATE TABLE endpoint_texts (
  search_rowid  INTEGER PRIMARY KEY,
  service_rowid INTEGER NOT NULL,
  text          TEXT NOT NULL,
  words         TEXT NOT NULL
);
-- A service's endpoints by its rowid, as a search finds them from the services a word's index matched.
CREATE INDEX endpoint_texts_service ON endpoint_texts (service_rowid);
CREATE TABLE service_texts (
  rowid INTEGER PRIMARY KEY,
  text  TEXT NOT NULL,
  words TEXT NOT NULL
);

-- A new endpoint gets its search_rowid from an update (migration 020's trigger), which writes its texts.
-- Updates fire only on a change: a crawl's upsert sets every column, most to what they were.
CREATE TRIGGER service_endpoints_texts_update AFTER UPDATE OF search_rowid, service_id, description, url, tags ON service_endpoints
  WHEN NEW.search_rowid IS NOT OLD.search_rowid OR NEW.service_id IS NOT OLD.service_id OR NEW.description IS NOT OLD.description
    OR NEW.url IS NOT OLD.url OR NEW.tags IS NOT OLD.tags
BEGIN
  DELETE FROM endpoint_texts WHERE search_rowid = OLD.search_rowid AND OLD.search_rowid IS NOT NEW.search_rowid;
  ${writeEndpoint('NEW')}
END;
CREATE TRIGGER service_endpoints_texts_delete AFTER DELETE ON service_endpoints BEGIN
  DELETE FROM endpoint_texts WHERE search_rowid = OLD.search_rowid;
END;
CREATE TRIGGER services_texts_insert AFTER INSERT ON services BEGIN
  ${writeService('NEW')}
END;
CREATE TRIGGER services_texts_update AFTER UPDATE OF rowid, name, description ON services
  WHEN NEW.rowid IS NOT OLD.rowid OR NEW.name IS NOT OLD.name OR NEW.description IS NOT OLD.description
BEGIN
  DELETE FROM service_texts WHERE rowid = OLD.rowid AND OLD.rowid IS NOT NEW.rowid;
  ${writeService('NEW')}
  UPDATE endpoint_texts SET service_rowid = NEW.rowid WHERE service_rowid = OLD.rowid AND OLD.rowid IS NOT NEW.rowid;
END;
CREATE TRIGGER services_texts_delete AFTER DELETE ON services BEGIN
  DELETE FROM service_texts WHERE rowid = OLD.rowid;
END;
`;

/** Runs after `up`: every stored service's and endpoint's texts, then the search keys' index. */
export function backfill(db: DB): void {
  db.exec(`
    INSERT INTO service_texts (rowid, text, words) SELECT s.rowid, ${serviceText('s')}, ${serviceWords('s')} FROM services s;
    INSERT INTO endpoint_texts (search_rowid, service_rowid, text, words)
      SELECT e.search_rowid, s.rowid, ${endpointText('e')}, ${endpointWords('e')}
      FROM service_endpoints e JOIN services s ON s.id = e.service_id WHERE e.search_rowid IS NOT NULL;
    CREATE INDEX service_endpoints_search_keys ON service_endpoints (
      search_rowid, live, service_flagged, service_uptime_30d, service_source_count, id
    );
  `);
}
