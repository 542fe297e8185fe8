import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from './db.ts';
import { migrations } from './migrations/index.ts';
import { INTERRUPTED_ERROR, closeInterruptedCrawlRuns, finishCrawlRun, getLastCrawlRun, iterateProbeSlots, pruneProbeHistory, readProbeTargets, rollUpProbeDay, startCrawlRun } from './crawl.ts';
import { recordProbe } from './probes.ts';
import { listProbes } from './probe-read.ts';
import { upsertServices } from './services.ts';
import { getSubmission, listQueuedSubmissions, markSubmissionListed, recordSubmissionFailure, submitService } from './submissions.ts';
import { makeService, openTestDatabase } from './testing.ts';

const probeAt = (id: string, at: string, ok: boolean, latency: number) => ({
  service_id: id, probed_at: at, ok, status_code: ok ? 402 : 500, method: 'GET', latency_ms: latency, reason: ok ? null : 'answered 500', detected_rails: [],
});

describe('crawl records', () => {
  it('opens the database with the page cache asked for, else better-sqlite3\'s 16,000 KiB', () => {
    expect(openDatabase(':memory:', { cacheKiB: 8_000 }).pragma('cache_size', { simple: true })).toBe(-8_000);
    expect(openDatabase(':memory:').pragma('cache_size', { simple: true })).toBe(-16_000);
  });

  it('records a run from start to finish', () => {
    const db = openTestDatabase();
    const id = startCrawlRun(db, 'full', '2026-11-01T00:00:00.000Z');
    expect(getLastCrawlRun(db)).toMatchObject({ id, status: 'running', finished_at: null });
    finishCrawlRun(db, id, { finishedAt: '2026-11-01T00:01:00.000Z', status: 'finished', counts: { probed: 3 }, errors: ['mpp.dev: timed out'] });
    expect(getLastCrawlRun(db)).toMatchObject({ status: 'finished', counts: { probed: 3 }, errors: ['mpp.dev: timed out'] });
  });

  it('closes as interrupted only the running runs whose process is gone', () => {
    const db = openTestDatabase();
    const killed = startCrawlRun(db, 'probe', '2026-11-01T00:00:00.000Z', 111);
    const alive = startCrawlRun(db, 'probe', '2026-11-01T00:01:00.000Z', 222);
    const done = startCrawlRun(db, 'probe', '2026-11-01T00:02:00.000Z', 111);
    finishCrawlRun(db, done, { finishedAt: '2026-11-01T00:03:00.000Z', status: 'finished', counts: {}, errors: [] });
    expect(closeInterruptedCrawlRuns(db, (run) => run.pid === 111, '2026-11-01T00:05:00.000Z')).toEqual([killed]);
    const rows = db.prepare('SELECT id, status, finished_at, errors, pid FROM crawl_runs ORDER BY id').all();
    expect(rows).toEqual([
      { id: killed, status: 'interrupted', finished_at: '2026-11-01T00:05:00.000Z', errors: JSON.stringify([INTERRUPTED_ERROR]), pid: 111 },
      { id: alive, status: 'running', finished_at: null, errors: '[]', pid: 222 },
      { id: done, status: 'finished', finished_at: '2026-11-01T00:03:00.000Z', errors: '[]', pid: 111 },
    ]);
  });

  it('keeps every run through migration 011, which lets a run be interrupted', () => {
    const db = new Database(':memory:');
    const before = migrations.findIndex((migration) => migration.name === '011-interrupted-runs');
    for (const migration of migrations.slice(0, before)) db.exec(migration.up);
    db.pragma(`user_version = ${before}`);
    db.exec(`INSERT INTO crawl_runs (kind, started_at, finished_at, status, counts, errors) VALUES
      ('full', '2026-10-01T00:00:00.000Z', '2026-10-01T00:09:00.000Z', 'finished', '{"probed":3}', '[]'),
      ('probe', '2026-10-02T00:00:00.000Z', NULL, 'running', '{}', '[]')`);
    expect(() => db.exec(`UPDATE crawl_runs SET status = 'interrupted'`)).toThrow(/CHECK constraint/);
    migrate(db);
    expect(db.prepare('SELECT id, kind, status, counts, pid FROM crawl_runs ORDER BY id').all()).toEqual([
      { id: 1, kind: 'full', status: 'finished', counts: '{"probed":3}', pid: null },
      { id: 2, kind: 'probe', status: 'running', counts: '{}', pid: null },
    ]);
    expect(closeInterruptedCrawlRuns(db, () => true, '2026-11-01T00:00:00.000Z')).toEqual([2]);
    expect(getLastCrawlRun(db)).toMatchObject({ id: 2, status: 'interrupted', errors: [INTERRUPTED_ERROR] });
    expect(() => db.exec(`UPDATE crawl_runs SET status = 'paused'`)).toThrow(/CHECK constraint/);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });

  it('lists every probe target except acp:// endpoints, with the main endpoint method, and reads them by id', () => {
    const db = openTestDatabase();
    const services = [makeService({ id: 'a-test' }), makeService({ id: 'shop-test', endpoint: 'acp://shop.test', rails: ['acp'] }),
      makeService({ id: 'b-test', endpoint: 'https://b.test/v1/pay' }), makeService({ id: 'c-test', endpoint: 'https://c.test/v1/pay' })];
    upsertServices(db, services, '2026-11-01T00:00:00.000Z');
    const slot = { url: 'https://a.test/v1/pay', last_latency_ms: null, last_status_code: null, wildcard_checked_at: null };
    expect([...iterateProbeSlots(db)]).toEqual([
      { ...slot, service_id: 'a-test' },
      { ...slot, service_id: 'b-test', url: 'https://b.test/v1/pay' },
      { ...slot, service_id: 'c-test', url: 'https://c.test/v1/pay' },
    ]);
    expect([...iterateProbeSlots(db, 2)].map((s) => s.service_id)).toEqual(['a-test', 'b-test']);
    expect(readProbeTargets(db, ['a-test', 'shop-test', 'gone-test'])).toEqual([{
      service_id: 'a-test', url: 'https://a.test/v1/pay', method: 'GET', last_latency_ms: null, last_status_code: null,
      listed_price_usd: 0.01, unanswered_since: null, flags: [], wildcard: null,
    }]);
    expect(readProbeTargets(db, ['c-test', 'b-test']).map((t) => t.service_id).sort()).toEqual(['b-test', 'c-test']);
  });

  it('rolls a day of probes up with the median latency, and prunes old probes but keeps the newest 20', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], '2026-11-01T00:00:00.000Z');
    const latencies = [50, 10, 30, 20, 40];
    latencies.forEach((latency, i) => recordProbe(db, probeAt('a-test', `2026-11-01T0${i}:00:00.000Z`, i !== 2, latency)));
    recordProbe(db, probeAt('a-test', '2026-11-02T00:00:00.000Z', true, 99));
    expect(readProbeTargets(db, ['a-test'])[0]?.last_latency_ms).toBe(99);
    expect([...iterateProbeSlots(db)][0]).toMatchObject({ last_latency_ms: 99, last_status_code: 402 });
    rollUpProbeDay(db, '2026-11-01');
    expect(db.prepare('SELECT * FROM probe_days').all()).toEqual([{ service_id: 'a-test', day: '2026-11-01', checks: 5, challenges: 4, latency_ms_median: 30 }]);
    // An even count takes the mean of the two middle ones; a check without an answer (timed out) is no response time.
    recordProbe(db, probeAt('a-test', '2026-11-01T06:00:00.000Z', true, 60));
    recordProbe(db, { ...probeAt('a-test', '2026-11-01T07:00:00.000Z', false, 10_000), status_code: null, reason: 'timed out after 10 s' });
    rollUpProbeDay(db, '2026-11-01');
    expect(db.prepare('SELECT checks, latency_ms_median FROM probe_days').all()).toEqual([{ checks: 7, latency_ms_median: 35 }]);
    for (let i = 0; i < 30; i++) recordProbe(db, probeAt('a-test', `2026-10-${String(i + 1).padStart(2, '0')}T00:00:00.000Z`, true, 1));
    pruneProbeHistory(db, { keepProbesSince: '2026-11-01T00:00:00.000Z', keepLast: 20, keepDaysSince: '2025-11-01' });
    expect(db.prepare('SELECT count(*) AS n FROM probes').get()).toEqual({ n: 20 });
    expect(listProbes(db, 'a-test')[0]?.probed_at).toBe('2026-11-02T00:00:00.000Z');
  });
});

describe('submission lifecycle', () => {
  const submit = (db: ReturnType<typeof openTestDatabase>, endpoint: string) =>
    submitService(db, { endpoint, name: null, contact: null, idempotencyKey: null }, new Date('2026-11-01T00:00:00Z')).submission.id;

  it('lists a submission whose challenge was found', () => {
    const db = openTestDatabase();
    const id = submit(db, 'https://a.example/pay');
    markSubmissionListed(db, id, 'a-example', '2026-11-01T01:00:00.000Z');
    expect(getSubmission(db, id)).toMatchObject({ status: 'listed', service_id: 'a-example', attempts: 1 });
    expect(listQueuedSubmissions(db)).toEqual([]);
  });

  it('rejects after three failed crawls spanning at least 24 hours, keeping the reason', () => {
    const db = openTestDatabase();
    const id = submit(db, 'https://b.example/pay');
    expect(recordSubmissionFailure(db, id, 'answered 404', '2026-11-01T01:00:00.000Z')).toBe('queued');
    expect(recordSubmissionFailure(db, id, 'answered 404', '2026-11-01T02:00:00.000Z')).toBe('queued');
    expect(recordSubmissionFailure(db, id, 'answered 404', '2026-11-01T03:00:00.000Z')).toBe('queued');
    expect(listQueuedSubmissions(db)).toMatchObject([{ id, attempts: 3, first_failed_at: '2026-11-01T01:00:00.000Z' }]);
    expect(recordSubmissionFailure(db, id, 'timed out after 10 s', '2026-11-02T01:00:00.000Z')).toBe('rejected');
    expect(getSubmission(db, id)).toMatchObject({ status: 'rejected', reason: 'timed out after 10 s', attempts: 4 });
  });
});
