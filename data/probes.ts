import { readServiceState, recordServiceChanges } from './changes.ts';
import type { Flag } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';
import { writeServiceFlags } from './flags.ts';
import { storeServiceDetail } from './service-detail.ts';
import { recordChallenge } from './endpoints.ts';
import { applyServiceTerms } from './services.ts';
import type { ProbeInput } from './types.ts';

const statements = preparedOnce({
  insert: `INSERT INTO probes (service_id, probed_at, ok, status_code, method, latency_ms, reason, detected_rails)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  updateService: `UPDATE services SET live = @live, live_rank = @rank, last_probe_at = @at, reason = @reason,
      last_seen_live = CASE WHEN @live = 1 THEN @at ELSE last_seen_live END,
      unanswered_since = CASE WHEN @answered = 1 THEN NULL ELSE coalesce(unanswered_since, @at) END
    WHERE id = @id AND (last_probe_at IS NULL OR last_probe_at <= @at)`,
  updateFacets: `UPDATE service_facets SET live_rank = ? WHERE service_id = ? AND live_rank <> ?`,
  notProbed: `UPDATE services SET reason = ? WHERE id = ? AND reason IS NOT ?`,
});

/**
 * Records one probe, moves the service's liveness, `reason` and the start of its run without an HTTP answer to its
 * result (unless a newer probe is already recorded), takes the terms its challenge states as the service's own, and
 * sets the flags the crawler observed with it (data/flags.ts).
 * @example recordProbe(db, { service_id: 'api-example-com', probed_at, ok: true, status_code: 402, ... });
 */
export function recordProbe(db: DB, probe: ProbeInput): void {
  recordProbes(db, [probe]);
}

/**
 * Records probes in one transaction (each one as `recordProbe` does), then re-renders the detail answer and the
 * 30-day figures (`uptime_30d`, `checks_30d`, `median_latency_ms_30d`) of each service once, as of the newest of its
 * probes recorded here (data/uptime.ts): two indexed reads a service; and records in the same transaction what
 * changed of each service (went live or dark, its price or terms: data/change-detect.ts).
 * `changes: false` leaves the log out, for the benchmark that measures what writing it costs.
 * @example recordProbes(db, probesOfOneService);
 */
export function recordProbes(db: DB, probes: readonly ProbeInput[], options: { changes?: boolean } = {}): void {
  const s = statements(db);
  const changes = options.changes ?? true;
  db.transaction(() => {
    // What each service was before this batch, for the change log written with it.
    const before = new Map(changes ? probes.map((probe) => [probe.service_id, readServiceState(db, probe.service_id, false)]) : []);
    for (const probe of probes) {
      s.insert.run(probe.service_id, probe.probed_at, probe.ok ? 1 : 0, probe.status_code, probe.method,
        probe.latency_ms, probe.reason, JSON.stringify(probe.detected_rails));
      const rank = probe.ok ? 0 : 1;
      const changed = s.updateService.run({
        id: probe.service_id, live: probe.ok ? 1 : 0, rank, at: probe.probed_at, reason: probe.reason,
        answered: probe.status_code === null ? 0 : 1,
      });
      if (changed.changes > 0) s.updateFacets.run(rank, probe.service_id, rank);
      if (probe.ok && probe.terms) {
        applyServiceTerms(db, probe.service_id, probe.terms);
        const { offers, x402 } = probe.terms;
        recordChallenge(db, { service_id: probe.service_id, method: null, at: probe.probed_at, offers, x402 });
      }
      if (changed.changes > 0 && probe.flags) writeServiceFlags(db, probe.service_id, probe.flags);
    }
    const newest = new Map<string, string>();
    for (const probe of probes) {
      const held = newest.get(probe.service_id);
      if (held === undefined || probe.probed_at > held) newest.set(probe.service_id, probe.probed_at);
    }
    for (const [id, at] of newest) storeServiceDetail(db, id, at);
    for (const [id, at] of newest) if (before.get(id)) recordServiceChanges(db, id, before.get(id)!, at, false);
  }).immediate();
}

/**
 * Records that a service's main endpoint was not probed, and why (a URL template nothing fills): its `reason` says
 * so and its flags are set; liveness stays as it was. Writes (and re-renders the detail) only what changed, and
 * records a flag change in the log with it.
 * @example recordNotProbed(db, 'api-example-com', { at, reason: 'URL template: not probed as written', flags: ['template_url'] });
 */
export function recordNotProbed(db: DB, id: string, outcome: { at: string; reason: string; flags: Flag[] }): void {
  db.transaction(() => {
    const before = readServiceState(db, id, false);
    const reasonChanged = statements(db).notProbed.run(outcome.reason, id, outcome.reason).changes > 0;
    const flagsChanged = writeServiceFlags(db, id, outcome.flags) !== null;
    if (reasonChanged || flagsChanged) storeServiceDetail(db, id, outcome.at);
    if (flagsChanged) recordServiceChanges(db, id, before, outcome.at, false);
  }).immediate();
}
