/**
 * Flags and every listed endpoint checked (DESIGN.md "Flags (trust signals)", "Richer lists and census"):
 * - `services.reason`: why the last probe found no challenge (the list's `reason`), kept on the row so the list
 *   reads no probe; `services.unanswered_since`: when the run of probes without any HTTP answer began (null while
 *   the host answers), so `unreachable_30d` needs no 30 days of raw probes.
 * - `service_endpoints.sources`: the directory kinds that list each endpoint (JSON array).
 * - `endpoint_checks`: the last check of each listed endpoint, keyed by method and URL rather than by position, so
 *   a discovery rewriting the endpoints keeps their checks; `checked_at` indexed for "the longest unchecked first".
 * - `wildcard_checks`: the last daily random-path check of each service's host, and whether it answered the same 402.
 */
export const up = `
ALTER TABLE services ADD COLUMN reason TEXT;
ALTER TABLE services ADD COLUMN unanswered_since TEXT;
ALTER TABLE service_endpoints ADD COLUMN sources TEXT NOT NULL DEFAULT '[]';

CREATE TABLE endpoint_checks (
  service_id  TEXT NOT NULL REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  method      TEXT NOT NULL,  -- '' when the directory gives none
  url         TEXT NOT NULL,
  checked_at  TEXT NOT NULL,
  ok          INTEGER NOT NULL,
  status_code INTEGER,
  latency_ms  INTEGER,
  reason      TEXT,
  PRIMARY KEY (service_id, method, url)
) WITHOUT ROWID;
CREATE INDEX endpoint_checks_time ON endpoint_checks (checked_at);

CREATE TABLE wildcard_checks (
  service_id  TEXT PRIMARY KEY REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  checked_at  TEXT NOT NULL,
  url         TEXT NOT NULL,
  status_code INTEGER,
  same_402    INTEGER NOT NULL
) WITHOUT ROWID;

UPDATE services SET reason = (SELECT p.reason FROM probes p WHERE p.service_id = services.id
  ORDER BY p.probed_at DESC, p.id DESC LIMIT 1) WHERE last_probe_at IS NOT NULL;
UPDATE services SET unanswered_since = (SELECT min(p.probed_at) FROM probes p WHERE p.service_id = services.id
  AND p.probed_at > coalesce((SELECT max(a.probed_at) FROM probes a WHERE a.service_id = services.id
    AND a.status_code IS NOT NULL), ''))
  WHERE last_probe_at IS NOT NULL;

DELETE FROM service_details;
`;
