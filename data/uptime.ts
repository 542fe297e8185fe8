import type Database from 'better-sqlite3';
import { UPTIME_WINDOWS, type Uptime, type UptimeWindow } from '../domain/schemas.ts';
import type { DB } from './db.ts';
import { weightedMedian } from './median.ts';

/*
 * The one reading of a service's uptime: the detail answer (data/service-detail.ts), the `uptime_30d`, `checks_30d`
 * and `median_latency_ms_30d` columns the list sorts by, and the listing page (site/src/lib/uptime.ts) all take it
 * from here. It imports nothing from `data/` at run time but the median, so a migration can backfill with it.
 */

const HOUR_MS = 3_600_000;

/** A service's uptime over each window and the median latency of its answered checks over the last 30 days. */
export interface UptimeFigures {
  uptime: Uptime;
  median_latency_ms_30d: number | null;
}

interface ProbeRow {
  probed_at: string;
  ok: number;
  status_code: number | null;
  latency_ms: number | null;
}

interface DayRow {
  day: string;
  checks: number;
  challenges: number;
  latency_ms_median: number | null;
}

// Prepared here rather than with db.ts's preparedOnce, which would make migration 009 import db.ts back.
const prepared = new WeakMap<DB, { probes: Database.Statement; days: Database.Statement }>();

function statements(db: DB) {
  let held = prepared.get(db);
  if (!held) {
    held = {
      // Covered by probes_service_time (migration 009): one range of the index, no table reads.
      probes: db.prepare(`SELECT probed_at, ok, status_code, latency_ms FROM probes WHERE service_id = ? AND probed_at >= ?`),
      days: db.prepare(`SELECT day, checks, challenges, latency_ms_median FROM probe_days WHERE service_id = ? AND day >= ?`),
    };
    prepared.set(db, held);
  }
  return held;
}

/**
 * Uptime of a service's main endpoint as of `now`: the share of checks in each window that detected a challenge.
 * The 24 h window counts raw probes; 7 d and 30 d use the daily roll-ups (from the UTC day the window starts in)
 * when they hold at least as many checks as the raw probes still kept (the crawler prunes raw probes after 7 days
 * and keeps the roll-ups), else the raw probes. `ratio` is null when a window holds no checks.
 * @example getUptime(db, 'api-example-com', new Date())['24h'] // { checks: 24, detected: 22, ratio: 0.9166 }
 */
export function getUptime(db: DB, serviceId: string, now: Date): Uptime {
  return getUptimeFigures(db, serviceId, now).uptime;
}

/**
 * `getUptime` and the 30-day median latency of answered checks (status code known; a timeout's latency is the time
 * limit, not a response time), from two indexed reads. The median counts each raw answered check in the window once,
 * and each older day of the window that only the roll-ups still hold (a day before the oldest raw probe kept in it)
 * as its daily median, `checks` times: a day of many checks weighs as much as its checks would have.
 * @example getUptimeFigures(db, 'api-example-com', new Date()).median_latency_ms_30d // 180
 */
export function getUptimeFigures(db: DB, serviceId: string, now: Date): UptimeFigures {
  const s = statements(db);
  const since = (hours: number) => new Date(now.getTime() - hours * HOUR_MS).toISOString();
  const monthAgo = since(30 * 24);
  const probes = s.probes.all(serviceId, monthAgo) as ProbeRow[];
  const days = s.days.all(serviceId, monthAgo.slice(0, 10)) as DayRow[];

  const uptime = {} as Uptime;
  for (const { key, hours } of UPTIME_WINDOWS) {
    const from = since(hours);
    const raw = { checks: 0, detected: 0 };
    for (const probe of probes) {
      if (probe.probed_at < from) continue;
      raw.checks += 1;
      raw.detected += probe.ok;
    }
    let counts = raw;
    if (hours > 24) {
      const fromDay = from.slice(0, 10);
      const rolled = { checks: 0, detected: 0 };
      for (const day of days) {
        if (day.day < fromDay) continue;
        rolled.checks += day.checks;
        rolled.detected += day.challenges;
      }
      if (rolled.checks >= raw.checks && rolled.checks > 0) counts = rolled;
    }
    uptime[key] = toWindow(counts.checks, counts.detected);
  }

  let oldestRawDay: string | null = null;
  const latencies: Array<[number, number]> = [];
  for (const probe of probes) {
    const day = probe.probed_at.slice(0, 10);
    if (oldestRawDay === null || day < oldestRawDay) oldestRawDay = day;
    if (probe.status_code !== null && probe.latency_ms !== null) latencies.push([probe.latency_ms, 1]);
  }
  for (const day of days) {
    if (day.latency_ms_median === null || (oldestRawDay !== null && day.day >= oldestRawDay)) continue;
    latencies.push([day.latency_ms_median, day.checks]);
  }
  return { uptime, median_latency_ms_30d: weightedMedian(latencies) };
}

const toWindow = (checks: number, detected: number): UptimeWindow => ({ checks, detected, ratio: checks === 0 ? null : detected / checks });
