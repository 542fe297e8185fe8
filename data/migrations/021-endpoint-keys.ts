/**
 * What the endpoint list (data/endpoint-list.ts) filters, counts and orders by, kept on each `service_endpoints` row
 * by triggers, so a page is an index walk and counts need no join (at 100,000 services, joining every match to its
 * service and check to learn its liveness took seconds):
 * - `live` (0/1, null when never checked) and `latency_ms`: the main endpoint's are its service's (`live`,
 *   `median_latency_ms_30d`), any other's its last check's (`endpoint_checks`);
 * - the service's quality keys (data/quality.ts): `service_flagged` (0/1), `service_uptime_30d`,
 *   `service_source_count` (how many kinds of directory list it);
 * - `terms`: the endpoint's filter values as a JSON array of `rail:x402`, `chain:base`, `asset:usdc`, `scheme:exact`
 *   (lower-cased, each once): from its standing offers (its last valid challenge's, else its directories') and the
 *   rails, chains and assets its directories list, as the list's filters read them.
 * `endpoint_tallies` counts the endpoints and the live ones in all (`term` '') and per term, and
 * `endpoint_price_tallies` per cheapest price (`min_usd`), each moved by triggers with the row it counts, so the
 * counts of no filter, one term or a price ceiling (each with or without `live`) are read, not counted.
 * Indexes hold the `quality` order (with every other key, so it covers what counting a filter reads) and the
 * `latency` order (the `price` order has one since migration 019).
 * The triggers are made after the backfill, so filling half a million rows fires none of them.
 */

/** The endpoint row's liveness and latency given its service `s` (a row alias or NEW) and its own row `e`. */
const checkOf = (e: string, column: string) => `(SELECT c.${column} FROM endpoint_checks c
  WHERE c.service_id = ${e}.service_id AND c.method = coalesce(${e}.method, '') AND c.url = ${e}.url)`;
const liveOf = (e: string, s: string) => `CASE WHEN ${e}.url = ${s}.endpoint THEN ${s}.live ELSE ${checkOf(e, 'ok')} END`;
const latencyOf = (e: string, s: string) =>
  `CASE WHEN ${e}.url = ${s}.endpoint THEN ${s}.median_latency_ms_30d ELSE ${checkOf(e, 'latency_ms')} END`;

/** The terms of the endpoint row `e`, as the list's filters read offers and listed values. */
const termsOf = (e: string) => {
  const offers = `json_each(coalesce((SELECT ch.offers FROM endpoint_challenges ch WHERE ch.endpoint_id = ${e}.id), ${e}.listed_offers))`;
  const offered = (kind: string, path: string) => `SELECT '${kind}:' || lower(json_extract(o.value, '${path}')) AS term FROM ${offers} o`;
  const listed = (kind: string, column: string) => `SELECT '${kind}:' || lower(t.value) FROM json_each(${e}.${column}) t`;
  return `(SELECT json_group_array(term) FROM (${offered('rail', '$.rail')} UNION ${offered('chain', '$.chain')}
    UNION ${offered('asset', '$.asset.symbol')} UNION ${offered('scheme', '$.scheme')}
    UNION ${listed('rail', 'rails')} UNION ${listed('chain', 'chains')} UNION ${listed('asset', 'assets')}) WHERE term IS NOT NULL)`;
};

/** Sets every kept column of the endpoint rows `where` picks (`service_endpoints` itself is `e`'s name there). */
const deriveRows = (where: string) => `UPDATE service_endpoints SET live = ${liveOf('service_endpoints', 's')},
    latency_ms = ${latencyOf('service_endpoints', 's')}, service_flagged = s.flags <> '[]', service_uptime_30d = s.uptime_30d,
    service_source_count = json_array_length(s.sources), terms = ${termsOf('service_endpoints')}
  FROM services s WHERE s.id = service_endpoints.service_id AND ${where};`;

/**
 * Sets, on every endpoint row, the keys it takes from its service and its own check (all but `terms`): what a replica
 * runs on a public copy, which leaves them out (data/public-copy.ts).
 */
export const deriveServiceKeys = `UPDATE service_endpoints AS e SET live = ${liveOf('e', 's')}, latency_ms = ${latencyOf('e', 's')},
    service_flagged = s.flags <> '[]', service_uptime_30d = s.uptime_30d, service_source_count = json_array_length(s.sources)
  FROM services s WHERE s.id = e.service_id;`;

/** Adds (`sign` 1) or takes away (-1) the endpoint `row` (NEW or OLD) in the term tallies, `when` holds; empties are dropped. */
const tallyTerms = (row: string, sign: 1 | -1, when = 'true') => sign === 1
  ? `INSERT INTO endpoint_tallies (term, total, live)
      SELECT value, 1, ${row}.live IS 1 FROM (SELECT '' AS value UNION SELECT value FROM json_each(${row}.terms)) WHERE ${when}
      ON CONFLICT (term) DO UPDATE SET total = total + 1, live = live + excluded.live;`
  : `UPDATE endpoint_tallies SET total = total - 1, live = live - (${row}.live IS 1)
      WHERE ${when} AND term IN (SELECT '' UNION SELECT value FROM json_each(${row}.terms));
    DELETE FROM endpoint_tallies WHERE ${when} AND total = 0 AND term IN (SELECT '' UNION SELECT value FROM json_each(${row}.terms));`;

/** The same in the price tallies. */
const tallyPrice = (row: string, sign: 1 | -1, when = 'true') => sign === 1
  ? `INSERT INTO endpoint_price_tallies (min_usd, total, live) SELECT ${row}.min_usd, 1, ${row}.live IS 1
      WHERE ${when} AND ${row}.min_usd IS NOT NULL
      ON CONFLICT (min_usd) DO UPDATE SET total = total + 1, live = live + excluded.live;`
  : `UPDATE endpoint_price_tallies SET total = total - 1, live = live - (${row}.live IS 1) WHERE ${when} AND min_usd = ${row}.min_usd;
    DELETE FROM endpoint_price_tallies WHERE ${when} AND total = 0 AND min_usd = ${row}.min_usd;`;

const tally = (row: string, sign: 1 | -1) => `${tallyTerms(row, sign)}\n  ${tallyPrice(row, sign)}`;
/** An update moves the term tallies when liveness or terms changed, the price tallies when liveness or price did. */
const TERMS_MOVED = '(NEW.live IS NOT OLD.live OR NEW.terms IS NOT OLD.terms)';
const PRICE_MOVED = '(NEW.live IS NOT OLD.live OR NEW.min_usd IS NOT OLD.min_usd)';

const KEY_OF = (row: string) => `service_id = ${row}.service_id AND coalesce(method, '') = ${row}.method AND url = ${row}.url
    AND url IS NOT (SELECT endpoint FROM services WHERE id = ${row}.service_id)`;

export const up = `
ALTER TABLE service_endpoints ADD COLUMN live INTEGER;
ALTER TABLE service_endpoints ADD COLUMN latency_ms INTEGER;
ALTER TABLE service_endpoints ADD COLUMN service_flagged INTEGER NOT NULL DEFAULT 0;
ALTER TABLE service_endpoints ADD COLUMN service_uptime_30d REAL;
ALTER TABLE service_endpoints ADD COLUMN service_source_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE service_endpoints ADD COLUMN terms TEXT NOT NULL DEFAULT '[]';

UPDATE service_endpoints AS e SET live = ${liveOf('e', 's')}, latency_ms = ${latencyOf('e', 's')},
    service_flagged = s.flags <> '[]', service_uptime_30d = s.uptime_30d, service_source_count = json_array_length(s.sources),
    terms = ${termsOf('e')}
  FROM services s WHERE s.id = e.service_id;

CREATE TABLE endpoint_tallies (
  term  TEXT PRIMARY KEY,   -- '' for every endpoint, else a term ('rail:x402')
  total INTEGER NOT NULL,
  live  INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO endpoint_tallies (term, total, live)
  SELECT '', count(*), count(*) FILTER (WHERE live IS 1) FROM service_endpoints WHERE true
  UNION ALL SELECT t.value, count(*), count(*) FILTER (WHERE e.live IS 1) FROM service_endpoints e, json_each(e.terms) t GROUP BY t.value;
DELETE FROM endpoint_tallies WHERE total = 0;

CREATE TABLE endpoint_price_tallies (
  min_usd REAL PRIMARY KEY,
  total   INTEGER NOT NULL,
  live    INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO endpoint_price_tallies (min_usd, total, live)
  SELECT min_usd, count(*), count(*) FILTER (WHERE live IS 1) FROM service_endpoints WHERE min_usd IS NOT NULL GROUP BY min_usd;

-- The quality order, then every other key the filters and orders read: counting a filter and ordering its matches
-- read this index alone, a fraction of the table's size.
CREATE INDEX service_endpoints_quality ON service_endpoints (
  live IS NOT 1, service_flagged, service_uptime_30d IS NULL, service_uptime_30d DESC, service_source_count DESC, id,
  min_usd, latency_ms, live, terms
);
CREATE INDEX service_endpoints_latency ON service_endpoints (latency_ms IS NULL, latency_ms, id, min_usd, live, terms);

-- One trigger tallies a new row as written and then derives its keys, in that order: the derivation's update moves
-- the tallies from what was tallied (a trigger of its own could run either first). A row written with its
-- search_rowid (the public copy, migration 020) brings its keys with it.
CREATE TRIGGER service_endpoints_keys_insert AFTER INSERT ON service_endpoints BEGIN
  ${tally('NEW', 1)}
  ${deriveRows('service_id = NEW.service_id AND position = NEW.position AND NEW.search_rowid IS NULL')}
END;
CREATE TRIGGER service_endpoints_keys_update AFTER UPDATE OF id, url, method, rails, chains, assets, listed_offers ON service_endpoints BEGIN
  ${deriveRows('service_id = NEW.service_id AND position = NEW.position')}
END;
CREATE TRIGGER services_endpoint_keys AFTER UPDATE OF live, endpoint, median_latency_ms_30d, flags, uptime_30d, sources ON services
  WHEN NEW.live IS NOT OLD.live OR NEW.endpoint IS NOT OLD.endpoint OR NEW.median_latency_ms_30d IS NOT OLD.median_latency_ms_30d
    OR NEW.flags IS NOT OLD.flags OR NEW.uptime_30d IS NOT OLD.uptime_30d OR NEW.sources IS NOT OLD.sources
BEGIN
  UPDATE service_endpoints SET live = ${liveOf('service_endpoints', 'NEW')}, latency_ms = ${latencyOf('service_endpoints', 'NEW')},
    service_flagged = NEW.flags <> '[]', service_uptime_30d = NEW.uptime_30d, service_source_count = json_array_length(NEW.sources)
  WHERE service_id = NEW.id;
END;

CREATE TRIGGER endpoint_checks_keys_insert AFTER INSERT ON endpoint_checks BEGIN
  UPDATE service_endpoints SET live = NEW.ok, latency_ms = NEW.latency_ms WHERE ${KEY_OF('NEW')};
END;
CREATE TRIGGER endpoint_checks_keys_update AFTER UPDATE ON endpoint_checks BEGIN
  UPDATE service_endpoints SET live = NULL, latency_ms = NULL WHERE ${KEY_OF('OLD')};
  UPDATE service_endpoints SET live = NEW.ok, latency_ms = NEW.latency_ms WHERE ${KEY_OF('NEW')};
END;
CREATE TRIGGER endpoint_checks_keys_delete AFTER DELETE ON endpoint_checks BEGIN
  UPDATE service_endpoints SET live = NULL, latency_ms = NULL WHERE ${KEY_OF('OLD')};
END;

CREATE TRIGGER endpoint_challenges_terms_insert AFTER INSERT ON endpoint_challenges BEGIN
  UPDATE service_endpoints SET terms = ${termsOf('service_endpoints')} WHERE id = NEW.endpoint_id;
END;
CREATE TRIGGER endpoint_challenges_terms_update AFTER UPDATE OF endpoint_id, offers ON endpoint_challenges BEGIN
  UPDATE service_endpoints SET terms = ${termsOf('service_endpoints')} WHERE id IN (OLD.endpoint_id, NEW.endpoint_id);
END;
CREATE TRIGGER endpoint_challenges_terms_delete AFTER DELETE ON endpoint_challenges BEGIN
  UPDATE service_endpoints SET terms = ${termsOf('service_endpoints')} WHERE id = OLD.endpoint_id;
END;

CREATE TRIGGER service_endpoints_tally_delete AFTER DELETE ON service_endpoints BEGIN
  ${tally('OLD', -1)}
END;
CREATE TRIGGER service_endpoints_tally_update AFTER UPDATE OF live, terms, min_usd ON service_endpoints
  WHEN NEW.live IS NOT OLD.live OR NEW.terms IS NOT OLD.terms OR NEW.min_usd IS NOT OLD.min_usd
BEGIN
  ${tallyTerms('OLD', -1, TERMS_MOVED)}
  ${tallyTerms('NEW', 1, TERMS_MOVED)}
  ${tallyPrice('OLD', -1, PRICE_MOVED)}
  ${tallyPrice('NEW', 1, PRICE_MOVED)}
END;
`;
