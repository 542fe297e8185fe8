/**
 * The crawler's records: each crawl run with its counts and errors, daily probe roll-ups per service
 * (kept a year, so pages can show uptime after raw probes are pruned), and when a submission first failed.
 */
export const up = `
CREATE TABLE crawl_runs (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('discovery', 'probe', 'full')),
  started_at  TEXT NOT NULL,
  finished_at TEXT,
  status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
  counts      TEXT NOT NULL DEFAULT '{}',  -- JSON: per source and per outcome
  errors      TEXT NOT NULL DEFAULT '[]'   -- JSON: what failed, in words
);

CREATE TABLE probe_days (
  service_id        TEXT NOT NULL REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  day               TEXT NOT NULL,         -- YYYY-MM-DD, UTC
  checks            INTEGER NOT NULL,
  challenges        INTEGER NOT NULL,
  latency_ms_median INTEGER,
  PRIMARY KEY (service_id, day)
) WITHOUT ROWID;

ALTER TABLE submissions ADD COLUMN first_failed_at TEXT;

-- JSON of an example request body a directory gives for an endpoint, used by probes of validation-first servers.
ALTER TABLE service_endpoints ADD COLUMN example_body TEXT;
`;
