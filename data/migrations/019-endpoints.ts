import { toEndpointId } from '../endpoint-id.ts';
import type { DB } from '../db.ts';

/**
 * Endpoints as records (DESIGN.md "Endpoints: what agents choose and call"):
 * - `service_endpoints` gains the endpoint's stable `id`, its route template, docs, tags, the offers its directories
 *   state (`listed_offers`, JSON Offer[]), its input and output (JSON, null when unknown) and `min_usd`, its cheapest
 *   known offer in USD as the list filters and sorts by (data/endpoints.ts keeps it);
 * - `endpoint_challenges`: the offers of each endpoint's last valid challenge (and its x402 `accepts` as stated, which
 *   /x402/discovery answers), keyed by endpoint id so a discovery rewriting the endpoints keeps them; they replace
 *   the listed offers while they stand;
 * - `origin_checks`: when each host's own `/openapi.json` and `/.well-known/x402` were last read (at most daily);
 * - `services` gains `min_price_usd` and `max_price_usd` (its `price_range` over every endpoint) and `endpoint_count`;
 *   `max_price_usd` and `sort=price` read the cheapest endpoint, through `services_min_price` (which replaces
 *   `services_price`, the main endpoint's price no list reads any more).
 * Stored detail answers lack the endpoint records: they are dropped and assembled again on each service's next read.
 */
export const up = `
ALTER TABLE service_endpoints ADD COLUMN id TEXT;
ALTER TABLE service_endpoints ADD COLUMN route_template TEXT;
ALTER TABLE service_endpoints ADD COLUMN docs_url TEXT;
ALTER TABLE service_endpoints ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE service_endpoints ADD COLUMN listed_offers TEXT NOT NULL DEFAULT '[]';
ALTER TABLE service_endpoints ADD COLUMN input TEXT;
ALTER TABLE service_endpoints ADD COLUMN output TEXT;
ALTER TABLE service_endpoints ADD COLUMN min_usd REAL;

CREATE TABLE endpoint_challenges (
  endpoint_id TEXT PRIMARY KEY,
  service_id  TEXT NOT NULL REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  seen_at     TEXT NOT NULL,
  offers      TEXT NOT NULL, -- JSON Offer[], seen_in 'challenge'
  x402_version INTEGER,      -- the x402 challenge's version and accepts as stated, null without one
  accepts     TEXT
) WITHOUT ROWID;
CREATE INDEX endpoint_challenges_service ON endpoint_challenges (service_id);

CREATE TABLE origin_checks (
  service_id TEXT PRIMARY KEY REFERENCES services (id) ON DELETE CASCADE ON UPDATE CASCADE,
  checked_at TEXT NOT NULL,
  found      INTEGER NOT NULL   -- endpoints its /openapi.json and /.well-known/x402 listed
) WITHOUT ROWID;
CREATE INDEX origin_checks_time ON origin_checks (checked_at);

ALTER TABLE services ADD COLUMN min_price_usd REAL;
ALTER TABLE services ADD COLUMN max_price_usd REAL;
ALTER TABLE services ADD COLUMN endpoint_count INTEGER NOT NULL DEFAULT 0;
DROP INDEX services_price;
CREATE INDEX services_min_price ON services (min_price_usd IS NULL, min_price_usd, id, live_rank, dual_rail);

UPDATE service_endpoints SET min_usd = price_usd;
UPDATE services SET endpoint_count = (SELECT count(*) FROM service_endpoints e WHERE e.service_id = services.id),
  min_price_usd = (SELECT min(e.price_usd) FROM service_endpoints e WHERE e.service_id = services.id),
  max_price_usd = (SELECT max(e.price_usd) FROM service_endpoints e WHERE e.service_id = services.id);

DELETE FROM service_details;
`;

/** Runs after `up`, in its transaction: every stored endpoint's id, then their index and the price order's. */
export function backfill(db: DB): void {
  const update = db.prepare(`UPDATE service_endpoints SET id = ? WHERE service_id = ? AND position = ?`);
  const rows = db.prepare(`SELECT service_id, position, method, url FROM service_endpoints`).all() as Array<{
    service_id: string; position: number; method: string | null; url: string;
  }>;
  for (const row of rows) update.run(toEndpointId(row.service_id, row.method, row.url), row.service_id, row.position);
  db.exec(`CREATE UNIQUE INDEX service_endpoints_id ON service_endpoints (id);
    CREATE INDEX service_endpoints_price ON service_endpoints (min_usd IS NULL, min_usd, id);`);
}
