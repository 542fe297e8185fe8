/**
 * The first schema: services (one per host) with their listed endpoints, sources and filter facets,
 * the probes of each main endpoint, the submissions queue, and full-text search over services.
 */
export const up = `
CREATE TABLE services (
  rowid          INTEGER PRIMARY KEY,
  id             TEXT NOT NULL UNIQUE,
  name           TEXT NOT NULL,
  category       TEXT,
  description    TEXT,
  endpoint       TEXT NOT NULL,
  facilitator    TEXT,
  price_usd      REAL,
  price_display  TEXT,
  rails          TEXT NOT NULL,            -- JSON array of rail names
  chains         TEXT NOT NULL,            -- JSON array of chain names
  assets         TEXT NOT NULL,            -- JSON array of asset symbols
  sources        TEXT NOT NULL,            -- JSON array of source kinds
  dual_rail      INTEGER NOT NULL,         -- 1 when rails hold two or more
  live           INTEGER,                  -- null: not yet probed
  live_rank      INTEGER NOT NULL DEFAULT 1, -- 0 when live: the first sort key
  last_seen_live TEXT,
  last_probe_at  TEXT,
  first_indexed  TEXT NOT NULL,
  updated_at     TEXT NOT NULL
);
CREATE INDEX services_order ON services (live_rank, id);

-- One row per filter value a service matches ('rail:x402', 'chain:base', 'asset:usdc'), ordered like the list.
CREATE TABLE service_facets (
  facet      TEXT NOT NULL,
  live_rank  INTEGER NOT NULL,
  service_id TEXT NOT NULL REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  dual_rail  INTEGER NOT NULL,
  PRIMARY KEY (facet, live_rank, service_id)
) WITHOUT ROWID;
CREATE INDEX service_facets_service ON service_facets (service_id);

CREATE TABLE service_endpoints (
  service_id    TEXT NOT NULL REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  position      INTEGER NOT NULL,
  url           TEXT NOT NULL,
  method        TEXT,
  description   TEXT,
  price_usd     REAL,
  price_display TEXT,
  rails         TEXT NOT NULL,
  chains        TEXT NOT NULL,
  assets        TEXT NOT NULL,
  PRIMARY KEY (service_id, position)
) WITHOUT ROWID;

CREATE TABLE service_sources (
  service_id TEXT NOT NULL REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  source     TEXT NOT NULL,
  url        TEXT NOT NULL DEFAULT '',   -- '' when the source gives no URL
  PRIMARY KEY (service_id, source, url)
) WITHOUT ROWID;

CREATE TABLE probes (
  id             INTEGER PRIMARY KEY,
  service_id     TEXT NOT NULL REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  probed_at      TEXT NOT NULL,
  ok             INTEGER NOT NULL,
  status_code    INTEGER,
  method         TEXT,
  latency_ms     INTEGER,
  reason         TEXT,
  detected_rails TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX probes_service_time ON probes (service_id, probed_at DESC);

CREATE TABLE submissions (
  id              TEXT PRIMARY KEY,
  endpoint        TEXT NOT NULL,
  endpoint_key    TEXT NOT NULL,           -- normalized URL, the dedupe key
  name            TEXT,
  contact         TEXT,
  idempotency_key TEXT UNIQUE,
  status          TEXT NOT NULL CHECK (status IN ('queued', 'listed', 'rejected')),
  reason          TEXT,
  attempts        INTEGER NOT NULL DEFAULT 0,
  service_id      TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX submissions_endpoint ON submissions (endpoint_key, created_at);
CREATE INDEX submissions_status ON submissions (status, created_at);

-- Trigram full-text index (substring search) over what 'q' searches; kept in step by data/services.ts.
CREATE VIRTUAL TABLE services_fts USING fts5 (
  name, category, description, endpoints,
  tokenize = 'trigram'
);
`;
