import type { DB } from '../db.ts';
import { getUptimeFigures } from '../uptime.ts';

/**
 * Richer lists (DESIGN.md "Richer lists and census"): each service's 30-day uptime, checks and median latency kept on
 * its row (rewritten with its detail answer: data/service-detail.ts), its flags and whether its owner is verified;
 * an index for each new order of the list, unknown values last and the id breaking ties, so a page reads an index in
 * order; `category:`, `source:` and `flag:` filter facets beside `rail:`, `chain:` and `asset:` (with their tallies);
 * and the probes index covering what the uptime reads (data/uptime.ts), so it never reads the table.
 *
 * Stored detail answers lack the new fields: they are dropped, assembled on the spot until each service's next
 * write (data/service-detail.ts), and the 30-day figures are backfilled as of each service's newest probe, the time
 * a probe write computes them at.
 */
export const up = `
ALTER TABLE services ADD COLUMN uptime_30d REAL;
ALTER TABLE services ADD COLUMN checks_30d INTEGER NOT NULL DEFAULT 0;
ALTER TABLE services ADD COLUMN median_latency_ms_30d INTEGER;
ALTER TABLE services ADD COLUMN flags TEXT NOT NULL DEFAULT '[]';  -- JSON array of flag names
ALTER TABLE services ADD COLUMN owner_verified INTEGER NOT NULL DEFAULT 0;

-- sort=price (covering live_rank and dual_rail, so the counts of max_price_usd read this index alone), uptime,
-- latency, newest: each in the list's order, so a page reads LIMIT rows of it.
CREATE INDEX services_price ON services (price_usd IS NULL, price_usd, id, live_rank, dual_rail);
CREATE INDEX services_uptime ON services (uptime_30d IS NULL, uptime_30d DESC, id);
CREATE INDEX services_latency ON services (median_latency_ms_30d IS NULL, median_latency_ms_30d, id);
CREATE INDEX services_newest ON services (first_indexed DESC, id);

DROP INDEX probes_service_time;
CREATE INDEX probes_service_time ON probes (service_id, probed_at DESC, id DESC, ok, status_code, latency_ms);

INSERT OR IGNORE INTO service_facets (facet, live_rank, service_id, dual_rail)
  SELECT 'category:' || lower(category), live_rank, id, dual_rail FROM services WHERE category IS NOT NULL AND category <> '';
INSERT OR IGNORE INTO service_facets (facet, live_rank, service_id, dual_rail)
  SELECT 'source:' || lower(k.value), s.live_rank, s.id, s.dual_rail FROM services s, json_each(s.sources) k;

DELETE FROM service_details;
`;

/** Runs after `up`, in its transaction: the 30-day figures of every probed service, as of its newest probe. */
export function backfill(db: DB): void {
  const update = db.prepare(`UPDATE services SET uptime_30d = ?, checks_30d = ?, median_latency_ms_30d = ? WHERE id = ?`);
  const probed = db.prepare(`SELECT id, last_probe_at FROM services WHERE last_probe_at IS NOT NULL`).all() as Array<{ id: string; last_probe_at: string }>;
  for (const { id, last_probe_at } of probed) {
    const { uptime, median_latency_ms_30d } = getUptimeFigures(db, id, new Date(last_probe_at));
    update.run(uptime['30d'].ratio, uptime['30d'].checks, median_latency_ms_30d, id);
  }
}
