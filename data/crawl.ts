import type { Flag } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';
import { median } from './median.ts';

/** What a crawl run records about itself. */
export interface CrawlRunRecord {
  id: number;
  kind: 'discovery' | 'probe' | 'full';
  started_at: string;
  finished_at: string | null;
  status: 'running' | 'finished' | 'failed' | 'interrupted';
  counts: Record<string, unknown>;
  errors: string[];
  /** The process that ran it; null for runs recorded before processes were. */
  pid: number | null;
}

/** A main endpoint to probe, with the example body its directory gives, if any, and what its flags build on. */
export interface ProbeTarget {
  service_id: string;
  url: string;
  method: string | null;
  body?: unknown;
  /** How long its newest probe took (a timeout counts as the time limit); null when never probed. */
  last_latency_ms: number | null;
  /** The status its newest probe got; null when it got no answer or was never probed. */
  last_status_code: number | null;
  /** The price the directories list for the main endpoint, in USD. */
  listed_price_usd: number | null;
  /** The start of its current run of probes without an HTTP answer; null while it answers. */
  unanswered_since: string | null;
  flags: Flag[];
  /** The host's last random-path check (data/endpoint-checks.ts), or null when never made. */
  wildcard: { checked_at: string; same_402: boolean } | null;
}

/** Joins a service's wildcard check (`w`) and its newest probe (`p`) to the service (`s`). */
const NEWEST_PROBE_JOINS = `LEFT JOIN wildcard_checks w ON w.service_id = s.id
    LEFT JOIN probes p ON p.id = (SELECT id FROM probes q WHERE q.service_id = s.id ORDER BY q.probed_at DESC, q.id DESC LIMIT 1)`;

const statements = preparedOnce({
  startRun: `INSERT INTO crawl_runs (kind, started_at, status, pid) VALUES (?, ?, 'running', ?) RETURNING id`,
  runningRuns: `SELECT id, pid FROM crawl_runs WHERE status = 'running'`,
  interruptRun: `UPDATE crawl_runs SET status = 'interrupted', finished_at = ?, errors = ? WHERE id = ? AND status = 'running'`,
  finishRun: `UPDATE crawl_runs SET finished_at = ?, status = ?, counts = ?, errors = ? WHERE id = ?`,
  lastRun: `SELECT * FROM crawl_runs ORDER BY id DESC LIMIT 1`,
  slots: `SELECT s.id AS service_id, s.endpoint AS url, w.checked_at AS wildcard_checked_at,
      p.latency_ms AS last_latency_ms, p.status_code AS last_status_code
    FROM services s ${NEWEST_PROBE_JOINS}
    WHERE s.endpoint NOT LIKE 'acp://%' ORDER BY s.id LIMIT ?`,
  targets: `SELECT s.id AS service_id, s.endpoint AS url, e.method, e.example_body, e.price_usd AS listed_price_usd,
      s.unanswered_since, s.flags, w.checked_at AS wildcard_checked_at, w.same_402 AS wildcard_same_402,
      p.latency_ms AS last_latency_ms, p.status_code AS last_status_code
    FROM services s LEFT JOIN service_endpoints e ON e.service_id = s.id AND e.position = (
      SELECT min(position) FROM service_endpoints WHERE service_id = s.id AND url = s.endpoint)
    ${NEWEST_PROBE_JOINS}
    WHERE s.id IN (SELECT value FROM json_each(?)) AND s.endpoint NOT LIKE 'acp://%'`,
  rollUp: `INSERT INTO probe_days (service_id, day, checks, challenges, latency_ms_median)
    SELECT service_id, substr(probed_at, 1, 10), count(*), sum(ok), NULL FROM probes
    WHERE probed_at >= ? AND probed_at < ? GROUP BY service_id, substr(probed_at, 1, 10)
    ON CONFLICT (service_id, day) DO UPDATE SET checks = excluded.checks, challenges = excluded.challenges`,
  // Only checks that got an HTTP answer: a timeout's latency is the time limit, not a response time.
  dayLatencies: `SELECT service_id, latency_ms FROM probes
    WHERE probed_at >= ? AND probed_at < ? AND latency_ms IS NOT NULL AND status_code IS NOT NULL`,
  setMedian: `UPDATE probe_days SET latency_ms_median = ? WHERE service_id = ? AND day = ?`,
  pruneProbes: `DELETE FROM probes WHERE probed_at < ? AND id NOT IN (
      SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY service_id ORDER BY probed_at DESC, id DESC) AS n
        FROM probes) WHERE n <= ?)`,
  pruneDays: `DELETE FROM probe_days WHERE day < ?`,
});

/** Opens a crawl run of the process `pid`; answers its id. */
export function startCrawlRun(db: DB, kind: CrawlRunRecord['kind'], startedAt: string, pid: number | null = null): number {
  return (statements(db).startRun.get(kind, startedAt, pid) as { id: number }).id;
}

/** The words an interrupted run's errors hold. */
export const INTERRUPTED_ERROR = 'interrupted: its process ended before the run was closed (killed, or the machine stopped)';

/**
 * Closes as `interrupted` every run still 'running' whose process `isGone` says has ended (a run killed with
 * kill -9 cannot close itself); answers their ids.
 * @example closeInterruptedCrawlRuns(db, (run) => !isProcessAlive(run.pid), new Date().toISOString());
 */
export function closeInterruptedCrawlRuns(db: DB, isGone: (run: { id: number; pid: number | null }) => boolean, at: string): number[] {
  const s = statements(db);
  return db.transaction(() => {
    const gone = (s.runningRuns.all() as Array<{ id: number; pid: number | null }>).filter(isGone);
    for (const { id } of gone) s.interruptRun.run(at, JSON.stringify([INTERRUPTED_ERROR]), id);
    return gone.map(({ id }) => id);
  }).immediate();
}

/** Closes a crawl run with what it counted and what failed. */
export function finishCrawlRun(
  db: DB,
  id: number,
  outcome: { finishedAt: string; status: 'finished' | 'failed'; counts: Record<string, unknown>; errors: string[] },
): void {
  statements(db).finishRun.run(outcome.finishedAt, outcome.status, JSON.stringify(outcome.counts), JSON.stringify(outcome.errors), id);
}

/** The newest crawl run, or null. */
export function getLastCrawlRun(db: DB): CrawlRunRecord | null {
  const row = statements(db).lastRun.get() as (Omit<CrawlRunRecord, 'counts' | 'errors'> & { counts: string; errors: string }) | undefined;
  return row ? { ...row, counts: JSON.parse(row.counts), errors: JSON.parse(row.errors) } : null;
}

/** What a pass first reads of each main endpoint to probe: enough to group, order and budget the pass. */
export type ProbeSlot = Pick<ProbeTarget, 'service_id' | 'url' | 'last_latency_ms' | 'last_status_code'> & {
  wildcard_checked_at: string | null;
};

/**
 * Every main endpoint that can be probed (`acp://` endpoints never are), by service id, at most `limit`; read one at a
 * time, so a pass over 100,000 services holds only what it keeps of each (its targets are read in pages, below).
 * @example for (const slot of iterateProbeSlots(db)) hosts.add(new URL(slot.url).host);
 */
export function iterateProbeSlots(db: DB, limit = -1): IterableIterator<ProbeSlot> {
  return statements(db).slots.iterate(limit) as IterableIterator<ProbeSlot>;
}

/**
 * The probe targets of the services named (those still stored with an endpoint that can be probed), in no set order.
 * @example readProbeTargets(db, ['api-example-com'])[0]?.url // 'https://api.example.com/v1/quote'
 */
export function readProbeTargets(db: DB, ids: readonly string[]): ProbeTarget[] {
  const rows = statements(db).targets.all(JSON.stringify(ids)) as Array<Omit<ProbeTarget, 'body' | 'flags' | 'wildcard'> & {
    example_body: string | null; flags: string; wildcard_checked_at: string | null; wildcard_same_402: number | null;
  }>;
  return rows.map(({ example_body, flags, wildcard_checked_at, wildcard_same_402, ...row }) => {
    const wildcard = wildcard_checked_at === null ? null : { checked_at: wildcard_checked_at, same_402: wildcard_same_402 === 1 };
    const target: ProbeTarget = { ...row, flags: JSON.parse(flags) as Flag[], wildcard };
    return example_body === null ? target : { ...target, body: JSON.parse(example_body) };
  });
}

/**
 * Rolls the probes of one UTC day up into `probe_days` (checks, challenges detected, median latency of the answered).
 * @example rollUpProbeDay(db, '2026-11-21');
 */
export function rollUpProbeDay(db: DB, day: string): void {
  const s = statements(db);
  const from = `${day}T00:00:00.000Z`;
  const to = new Date(Date.parse(from) + 86_400_000).toISOString();
  db.transaction(() => {
    s.rollUp.run(from, to);
    const latencies = new Map<string, number[]>();
    for (const row of s.dayLatencies.all(from, to) as Array<{ service_id: string; latency_ms: number }>) {
      const list = latencies.get(row.service_id) ?? [];
      list.push(row.latency_ms);
      latencies.set(row.service_id, list);
    }
    for (const [serviceId, list] of latencies) s.setMedian.run(median(list), serviceId, day);
  }).immediate();
}

/**
 * Keeps the database bounded: raw probes older than `keepProbesSince` go (but never a service's newest `keepLast`),
 * and daily roll-ups older than `keepDaysSince` (YYYY-MM-DD).
 */
export function pruneProbeHistory(db: DB, options: { keepProbesSince: string; keepLast: number; keepDaysSince: string }): void {
  const s = statements(db);
  db.transaction(() => {
    s.pruneProbes.run(options.keepProbesSince, options.keepLast);
    s.pruneDays.run(options.keepDaysSince);
  }).immediate();
}
