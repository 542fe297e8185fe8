import { describe, expect, it } from 'vitest';
import { UPTIME_WINDOWS } from '../domain/schemas.ts';
import { median, weightedMedian } from './median.ts';
import { recordProbes } from './probes.ts';
import { getService } from './service-read.ts';
import { upsertServices } from './services.ts';
import { makeService, openTestDatabase } from './testing.ts';
import type { ProbeInput } from './types.ts';
import { getUptime, getUptimeFigures } from './uptime.ts';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString();

function probe(ok: boolean, at: string, latency: number | null, status: number | null = ok ? 402 : 500): ProbeInput {
  return { service_id: 'a-test', probed_at: at, ok, status_code: status, method: 'GET', latency_ms: latency, reason: ok ? null : 'x', detected_rails: ok ? ['x402'] : [] };
}

function setUp() {
  const db = openTestDatabase();
  upsertServices(db, [makeService({ id: 'a-test' })], hoursAgo(40 * 24));
  return db;
}

const addDay = (db: ReturnType<typeof setUp>, day: string, checks: number, challenges: number, median: number | null) =>
  db.prepare(`INSERT INTO probe_days (service_id, day, checks, challenges, latency_ms_median) VALUES ('a-test', ?, ?, ?, ?)`)
    .run(day, checks, challenges, median);

describe('uptime', () => {
  it('counts raw probes over 24 h and, with no roll-ups, over 7 and 30 days', () => {
    const db = setUp();
    recordProbes(db, [probe(true, hoursAgo(1), 100), probe(false, hoursAgo(30), 300), probe(true, hoursAgo(10 * 24), 200),
      probe(false, hoursAgo(31 * 24), 50)]);
    expect(getUptime(db, 'a-test', NOW)).toEqual({
      '24h': { checks: 1, detected: 1, ratio: 1 },
      '7d': { checks: 2, detected: 1, ratio: 0.5 },
      '30d': { checks: 3, detected: 2, ratio: 2 / 3 },
    });
    expect(Object.keys(getUptime(db, 'a-test', NOW))).toEqual(UPTIME_WINDOWS.map((window) => window.key));
    expect(getUptimeFigures(db, 'a-test', NOW).median_latency_ms_30d).toBe(200);
  });

  it('reads 7 and 30 days from the roll-ups when they hold at least as many checks as the raw probes', () => {
    const db = setUp();
    recordProbes(db, [probe(true, hoursAgo(1), 100), probe(false, hoursAgo(2), 100)]);
    addDay(db, hoursAgo(0).slice(0, 10), 2, 1, 100);
    addDay(db, hoursAgo(20 * 24).slice(0, 10), 10, 10, 700);
    const uptime = getUptime(db, 'a-test', NOW);
    expect(uptime['24h']).toEqual({ checks: 2, detected: 1, ratio: 0.5 });
    expect(uptime['7d']).toEqual({ checks: 2, detected: 1, ratio: 0.5 });
    expect(uptime['30d']).toEqual({ checks: 12, detected: 11, ratio: 11 / 12 });
  });

  it('reports no checks as ratio null', () => {
    const db = setUp();
    expect(getUptimeFigures(db, 'a-test', NOW)).toEqual({
      uptime: { '24h': { checks: 0, detected: 0, ratio: null }, '7d': { checks: 0, detected: 0, ratio: null }, '30d': { checks: 0, detected: 0, ratio: null } },
      median_latency_ms_30d: null,
    });
  });

  it('takes the median over answered raw checks and each older rolled-up day weighted by its checks', () => {
    const db = setUp();
    // Raw: answered 100, 120 and 140; a timeout (no status) is no response time.
    recordProbes(db, [probe(true, hoursAgo(1), 100), probe(false, hoursAgo(3 * 24), 120, 404), probe(true, hoursAgo(6 * 24), 140),
      probe(false, hoursAgo(2), 10_000, null)]);
    // The day of the oldest raw probe and later are the raw probes' own; only older days count by their median.
    addDay(db, hoursAgo(6 * 24).slice(0, 10), 50, 50, 9_999);
    addDay(db, hoursAgo(15 * 24).slice(0, 10), 2, 2, 500);
    addDay(db, hoursAgo(40 * 24).slice(0, 10), 100, 100, 9_999);
    // 100, 120, 140, 500, 500: the middle one.
    expect(getUptimeFigures(db, 'a-test', NOW).median_latency_ms_30d).toBe(140);
    addDay(db, hoursAgo(16 * 24).slice(0, 10), 4, 4, 800);
    // 100, 120, 140, 500 x2, 800 x4: the fifth of nine.
    expect(getUptimeFigures(db, 'a-test', NOW).median_latency_ms_30d).toBe(500);
  });

  it('is written to the service by recordProbes, as of the newest probe recorded', () => {
    const db = setUp();
    recordProbes(db, [probe(true, hoursAgo(48), 100), probe(false, hoursAgo(24), 200), probe(true, hoursAgo(0), 300)]);
    expect(getService(db, 'a-test')).toMatchObject({ uptime_30d: 2 / 3, checks_30d: 3, median_latency_ms_30d: 200 });
    // A probe 40 days later: the older three leave the 30-day window.
    recordProbes(db, [probe(false, new Date(NOW.getTime() + 40 * 86_400_000).toISOString(), null, null)]);
    expect(getService(db, 'a-test')).toMatchObject({ uptime_30d: 0, checks_30d: 1, median_latency_ms_30d: null });
  });
});

describe('weightedMedian', () => {
  it('is the median when every weight is 1, and counts each value its weight of times', () => {
    for (const values of [[1], [4, 1, 3, 2], [10, 30, 20], [5, 5, 7, 100]]) {
      expect(weightedMedian(values.map((value) => [value, 1]))).toBe(median(values));
    }
    expect(weightedMedian([[100, 1], [300, 3]])).toBe(300);
    expect(weightedMedian([[100, 2], [300, 2]])).toBe(200);
    expect(weightedMedian([[100, 0]])).toBeNull();
    expect(weightedMedian([])).toBeNull();
  });
});
