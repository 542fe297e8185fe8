import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitService, getSubmission } from '../data/submissions.ts';
import { INTERRUPTED_ERROR, getLastCrawlRun } from '../data/crawl.ts';
import { openDatabase } from '../data/db.ts';
import { listProbes } from '../data/probe-read.ts';
import { listServices } from '../data/service-list.ts';
import { upsertServices } from '../data/services.ts';
import { getService, getStats } from '../data/service-read.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { BEHAVIOURS } from '../scripts/fleet/behaviours.ts';
import { startFleet, type Fleet } from '../scripts/fleet.ts';
import { toDirectoryConfig } from './directories.ts';
import { toServiceId } from '../domain/service-id.ts';
import { createProbeAgent, type ProbeAgent } from './probe.ts';
import { runCrawl } from './run.ts';
import { processSubmissions } from './submissions.ts';
import { parseAllowList } from '../net/guard.ts';
import acpMerchants from './sources/acp-merchants.json' with { type: 'json' };

// Generous: the suite runs beside browser tests on 2 cores, and a POST-only probe makes two requests.
const TIMEOUT_MS = 2000;
let fleet: Fleet;
let agent: ProbeAgent;
const dir = mkdtempSync(join(tmpdir(), 'psi-crawl-'));

beforeAll(async () => {
  fleet = await startFleet({ count: BEHAVIOURS.length * 2, behaviours: BEHAVIOURS, latency: 'none', probeTimeoutMs: TIMEOUT_MS });
  agent = createProbeAgent({ allow: parseAllowList('127.0.0.1') });
});
afterAll(async () => {
  await agent.dispatcher.close();
  await fleet.close();
  rmSync(dir, { recursive: true, force: true });
});

const crawlOf = (db: ReturnType<typeof openTestDatabase>, at: string, overrides = {}) =>
  runCrawl(db, {
    agent,
    directories: [toDirectoryConfig(`bazaar=${fleet.directories.bazaar}`), toDirectoryConfig(`mpp=${fleet.directories.mpp}`)],
    discover: true,
    probe: true,
    timeoutMs: TIMEOUT_MS,
    now: () => new Date(at),
    ...overrides,
  });

describe('a full crawl of the local fleet', () => {
  it('discovers every fleet service and records the exact outcome of every behaviour', async () => {
    const db = openTestDatabase();
    const summary = await crawlOf(db, '2026-11-01T00:00:00.000Z');
    expect(summary.errors).toEqual([]);
    expect(summary.discovery?.services.found).toBe(fleet.endpoints.length);
    expect(summary.probes?.probed).toBe(fleet.endpoints.length);
    for (const endpoint of fleet.endpoints) {
      const id = toServiceId(endpoint.url);
      const service = getService(db, id);
      const [probe] = listProbes(db, id);
      const label = `${endpoint.behaviour} ${endpoint.url}`;
      expect(service?.live, label).toBe(endpoint.expected.ok);
      expect(probe?.reason ?? null, label).toBe(endpoint.expected.reason);
      if (endpoint.expected.ok) expect(service?.rails, label).toEqual(expect.arrayContaining(endpoint.expected.rails));
    }
    const stats = getStats(db);
    expect(stats.live).toBe(fleet.endpoints.filter((e) => e.expected.ok).length);
    expect(stats.last_probe_at).toBe('2026-11-01T00:00:00.000Z');
    expect(getLastCrawlRun(db)).toMatchObject({ id: summary.run_id, status: 'finished', kind: 'full' });
  });

  it('takes a live challenge as authoritative over the directory terms', async () => {
    const db = openTestDatabase();
    await crawlOf(db, '2026-11-01T00:00:00.000Z');
    const dual = fleet.endpoints.find((e) => e.behaviour === 'dual-rail')!;
    expect(getService(db, toServiceId(dual.url))).toMatchObject({ rails: ['mpp', 'x402'], live: true });
    expect(listServices(db, { filters: { live: true, rail: 'mpp' }, page: { limit: 500, offset: 0 }, sort: 'live' }).services.length).toBeGreaterThan(0);
  });

  it('lists a submission whose challenge answers, and rejects one that fails three crawls over 24 hours', async () => {
    const db = openTestDatabase();
    const valid = fleet.endpoints.find((e) => e.behaviour === 'x402-v2-header')!;
    const broken = fleet.endpoints.find((e) => e.behaviour === 'not-found')!;
    const submit = (endpoint: string) => submitService(db, { endpoint, name: 'Submitted', contact: null, idempotencyKey: null }, new Date('2026-11-01T00:00:00Z')).submission.id;
    const listedId = submit(valid.url);
    const brokenId = submit(broken.url);
    const probeOnly = { discover: false };
    await crawlOf(db, '2026-11-01T01:00:00.000Z', probeOnly);
    expect(getSubmission(db, listedId)).toMatchObject({ status: 'listed', service_id: toServiceId(valid.url) });
    expect(getService(db, toServiceId(valid.url))).toMatchObject({ live: true, sources: ['submission'], name: 'Submitted' });
    expect(getSubmission(db, brokenId)).toMatchObject({ status: 'queued', reason: 'answered 404', attempts: 1 });
    await crawlOf(db, '2026-11-01T02:00:00.000Z', probeOnly);
    await crawlOf(db, '2026-11-01T03:00:00.000Z', probeOnly);
    expect(getSubmission(db, brokenId)).toMatchObject({ status: 'queued', attempts: 3 });
    await crawlOf(db, '2026-11-02T01:00:00.000Z', probeOnly);
    expect(getSubmission(db, brokenId)).toMatchObject({ status: 'rejected', reason: 'answered 404', attempts: 4 });
    expect(getService(db, toServiceId(broken.url))).toBeNull();
  });

  it('lists a submission on a host indexed under another main endpoint, whose checks stay those of the main one', async () => {
    const db = openTestDatabase();
    const valid = fleet.endpoints.find((e) => e.behaviour === 'x402-v2-header')!;
    const main = new URL('/not-here', valid.url).href;
    upsertServices(db, [makeService({ id: toServiceId(valid.url), endpoint: main })], '2026-11-01T00:00:00.000Z');
    const id = submitService(db, { endpoint: valid.url, name: null, contact: null, idempotencyKey: null }, new Date('2026-11-01T00:00:00Z')).submission.id;
    expect(await processSubmissions(db, { agent, timeoutMs: TIMEOUT_MS, now: () => new Date('2026-11-01T01:00:00Z') })).toMatchObject({ listed: 1 });
    expect(getSubmission(db, id)).toMatchObject({ status: 'listed', service_id: toServiceId(valid.url) });
    expect(getService(db, toServiceId(valid.url))).toMatchObject({ endpoint: main, live: null, sources: ['bazaar', 'submission'] });
    expect(listProbes(db, toServiceId(valid.url))).toEqual([]);
  });

  it('loses nothing when killed mid-crawl, and a re-run finishes the job and marks the killed run interrupted', async () => {
    const slowFleet = await startFleet({ count: 40, behaviours: ['slow'], latency: 'none', probeTimeoutMs: 500 });
    const databasePath = join(dir, 'kill.db');
    const crawl = () =>
      spawn(process.execPath, ['--import', 'tsx', 'scripts/crawl.ts', '--source', `bazaar=${slowFleet.directories.bazaar}`, '--timeout-ms', '500', '--concurrency', '8'], {
        env: { ...process.env, DATABASE_PATH: databasePath, ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
        stdio: 'ignore',
      });
    try {
      const first = crawl();
      const probed = () => {
        const db = openDatabase(databasePath);
        try {
          return (db.prepare('SELECT count(*) AS n FROM probes').get() as { n: number }).n;
        } catch {
          return 0;
        } finally {
          db.close();
        }
      };
      while (probed() < 8) await new Promise((resolve) => setTimeout(resolve, 100));
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      const afterKill = probed();
      expect(afterKill).toBeGreaterThanOrEqual(8);
      expect(afterKill).toBeLessThan(40);
      const killedDb = openDatabase(databasePath);
      const killed = getLastCrawlRun(killedDb);
      killedDb.close();
      expect(killed).toMatchObject({ status: 'running', finished_at: null, pid: first.pid });
      const second = crawl();
      const code = await new Promise((resolve) => second.once('exit', resolve));
      expect(code).toBe(0);
      const db = openDatabase(databasePath);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      // 40 fleet services and the curated ACP merchants, which are never probed.
      expect(getStats(db)).toMatchObject({ total: 40 + acpMerchants.length, probed: 40, live: 0 });
      expect(getLastCrawlRun(db)).toMatchObject({ status: 'finished', pid: second.pid });
      const runs = db.prepare('SELECT id, status, finished_at, errors FROM crawl_runs ORDER BY id').all() as Array<{ id: number; status: string; finished_at: string | null; errors: string }>;
      expect(runs.map((run) => run.status)).toEqual(['interrupted', 'finished']);
      expect(runs[0]).toMatchObject({ id: killed!.id, errors: JSON.stringify([INTERRUPTED_ERROR]) });
      expect(runs[0]!.finished_at! >= killed!.started_at).toBe(true);
      db.close();
    } finally {
      await slowFleet.close();
    }
    // Two crawl children, each starting under tsx: tens of seconds on a busy machine.
  }, 60_000);
});
