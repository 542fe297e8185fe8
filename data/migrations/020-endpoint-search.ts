import type { DB } from '../db.ts';

/**
 * The endpoint list's `q` through an index (data/endpoint-list.ts): `endpoints_fts`, a trigram full-text table (substring
 * search, as `services_fts`) over each endpoint's own text (description, URL, tags), keyed by `search_rowid`, a
 * number each endpoint row gets when written (service_endpoints has no rowid of its own). Triggers keep it in step
 * with every write of endpoints. A row written with its `search_rowid` given (the public copy) brings none: the copy
 * fills `endpoints_fts` from the original's.
 */
export const up = `
ALTER TABLE service_endpoints ADD COLUMN search_rowid INTEGER;
CREATE VIRTUAL TABLE endpoints_fts USING fts5 (text, tokenize = 'trigram');

CREATE TRIGGER service_endpoints_search_insert AFTER INSERT ON service_endpoints WHEN NEW.search_rowid IS NULL BEGIN
  UPDATE service_endpoints SET search_rowid = (SELECT coalesce(max(search_rowid), 0) + 1 FROM service_endpoints)
    WHERE service_id = NEW.service_id AND position = NEW.position;
  INSERT INTO endpoints_fts (rowid, text)
    SELECT search_rowid, coalesce(NEW.description, '') || ' ' || NEW.url || ' ' || NEW.tags FROM service_endpoints
    WHERE service_id = NEW.service_id AND position = NEW.position;
END;
CREATE TRIGGER service_endpoints_search_delete AFTER DELETE ON service_endpoints BEGIN
  DELETE FROM endpoints_fts WHERE rowid = OLD.search_rowid;
END;
CREATE TRIGGER service_endpoints_search_update AFTER UPDATE OF description, url, tags ON service_endpoints BEGIN
  DELETE FROM endpoints_fts WHERE rowid = OLD.search_rowid;
  INSERT INTO endpoints_fts (rowid, text) VALUES (NEW.search_rowid, coalesce(NEW.description, '') || ' ' || NEW.url || ' ' || NEW.tags);
END;
`;

/** Runs after `up`: numbers every stored endpoint and indexes its text, then the number's index. */
export function backfill(db: DB): void {
  db.exec(`
    UPDATE service_endpoints SET search_rowid = n FROM (
      SELECT service_id AS sid, position AS pos, row_number() OVER (ORDER BY service_id, position) AS n FROM service_endpoints
    ) WHERE service_id = sid AND position = pos;
    INSERT INTO endpoints_fts (rowid, text)
      SELECT search_rowid, coalesce(description, '') || ' ' || url || ' ' || tags FROM service_endpoints;
    CREATE UNIQUE INDEX service_endpoints_search ON service_endpoints (search_rowid);
  `);
}
