import type { IndexStatus } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';

/**
 * What the crawler last did, for `GET /api/v1/status` and the `/status` page: the newest probe pass and discovery
 * pass (a `full` run is both), what each directory read gave, and whether the machine reached any service at all.
 */

export interface PassRecord {
  run_id: number;
  kind: 'discovery' | 'probe' | 'full';
  status: 'running' | 'finished' | 'failed';
  started_at: string;
  finished_at: string | null;
}

/** A probe pass's probes: how many, how many got any HTTP answer, and how many per outcome. */
export interface ProbeTally {
  probed: number;
  live: number;
  /** Probes that got an HTTP answer of any kind (a 404 counts; a timeout or a refused connection does not). */
  reached: number;
  /** The same three, leaving out the index's own demo services (always reachable: they run on this server). */
  others: { probed: number; reached: number };
  /** Outcome (`challenge detected`, or the reason none was) -> probes, most frequent first. */
  outcomes: Array<{ outcome: string; probes: number }>;
}

export interface DirectoryRead {
  kind: string;
  url: string;
  endpoints: number;
  error: string | null;
}

/** The outcome of a probe that found a challenge; the others are named by their recorded reason. */
export const DETECTED = 'challenge detected';

const statements = preparedOnce({
  lastProbePass: `SELECT id AS run_id, kind, status, started_at, finished_at FROM crawl_runs
    WHERE kind IN ('probe', 'full') ORDER BY id DESC LIMIT 1`,
  lastDiscovery: `SELECT id AS run_id, kind, status, started_at, finished_at, counts FROM crawl_runs
    WHERE kind IN ('discovery', 'full') AND (status = 'finished' OR status = 'failed') ORDER BY id DESC LIMIT 1`,
  tally: `SELECT p.ok, p.reason, p.status_code IS NOT NULL AS reached,
      EXISTS (SELECT 1 FROM service_sources s WHERE s.service_id = p.service_id AND s.source = 'catalog') AS own,
      count(*) AS n
    FROM probes p WHERE p.probed_at >= ? AND p.probed_at <= ? GROUP BY 1, 2, 3, 4`,
});

/** The newest probe pass (finished, failed or still running), or null before the first. */
export function getLastProbePass(db: DB): PassRecord | null {
  return (statements(db).lastProbePass.get() as PassRecord | undefined) ?? null;
}

/** The newest discovery pass that ended, with what each directory read gave; null before the first. */
export function getLastDiscoveryPass(db: DB): { pass: PassRecord; directories: DirectoryRead[]; services: Record<string, number> | null } | null {
  const row = statements(db).lastDiscovery.get() as (PassRecord & { counts: string }) | undefined;
  if (!row) return null;
  const { counts, ...pass } = row;
  const discovery = (JSON.parse(counts) as { discovery?: { directories?: DirectoryRead[]; services?: Record<string, number> } | null }).discovery;
  const directories = (discovery?.directories ?? []).map(({ kind, url, endpoints, error }) => ({ kind, url, endpoints, error }));
  return { pass, directories, services: discovery?.services ?? null };
}

/**
 * Tallies the probes recorded within a pass (up to `until`, now for a pass still running).
 * @example tallyProbes(db, pass.started_at, pass.finished_at ?? new Date().toISOString()).reached
 */
export function tallyProbes(db: DB, from: string, until: string): ProbeTally {
  const rows = statements(db).tally.all(from, until) as Array<{ ok: number; reason: string | null; reached: number; own: number; n: number }>;
  const tally: ProbeTally = { probed: 0, live: 0, reached: 0, others: { probed: 0, reached: 0 }, outcomes: [] };
  const outcomes = new Map<string, number>();
  for (const row of rows) {
    tally.probed += row.n;
    if (row.ok) tally.live += row.n;
    if (row.reached) tally.reached += row.n;
    if (!row.own) {
      tally.others.probed += row.n;
      if (row.reached) tally.others.reached += row.n;
    }
    const outcome = row.ok ? DETECTED : (row.reason ?? 'no challenge');
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + row.n);
  }
  tally.outcomes = [...outcomes].map(([outcome, probes]) => ({ outcome, probes })).sort((a, b) => b.probes - a.probes || a.outcome.localeCompare(b.outcome));
  return tally;
}

/** For the operator: the index's own demo services answer from this machine, so only the others tell. */
export const OFFLINE_NOTICE =
  'The last probe pass reached none of the services beyond this index\'s own demo services (no HTTP answer from any of them): this machine may be offline.';

/**
 * The crawler's status as `GET /api/v1/status` answers it. `offline` when the last probe pass probed services other
 * than the index's own demo services and got no HTTP answer from any of them.
 * @example getIndexStatus(db, new Date()).offline
 */
export function getIndexStatus(db: DB, now: Date): IndexStatus {
  const probe = getLastProbePass(db);
  const tally = probe && tallyProbes(db, probe.started_at, probe.finished_at ?? now.toISOString());
  const discovery = getLastDiscoveryPass(db);
  const offline = tally !== null && tally.others.probed > 0 && tally.others.reached === 0;
  return {
    generated_at: now.toISOString(),
    offline,
    notice: offline ? OFFLINE_NOTICE : null,
    probe_pass: probe && tally && {
      ...toPass(probe),
      probed: tally.probed,
      live: tally.live,
      reached: tally.reached,
      outcomes: tally.outcomes,
    },
    discovery_pass: discovery && {
      ...toPass(discovery.pass),
      services: discovery.services && { found: discovery.services.found ?? 0, new: discovery.services.new ?? 0, updated: discovery.services.updated ?? 0 },
    },
    directories: discovery?.directories ?? [],
  };
}

function toPass({ kind, status, started_at, finished_at }: PassRecord) {
  const duration_ms = finished_at === null ? null : Math.max(0, Date.parse(finished_at) - Date.parse(started_at));
  return { kind, status, started_at, finished_at, duration_ms };
}
