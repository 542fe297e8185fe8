/**
 * The crawl benchmark: probe passes over 10,000 fleet services (most answering in 50-300 ms, a tail to seconds,
 * 1 % never answering; each host listing 1-50 endpoints as the API benchmark's data), run by the real `npm run crawl`
 * in a child process with its endpoint and wildcard checks on, against the bound the concurrency allows (sum of the
 * durations of its requests, checks included / concurrency): a first pass, then a scheduled pass that has the first's
 * durations, with its peak RSS and the API's p99 while it runs, against idle at the rate the load reached, with the load
 * generator and the fleet kept off the server's core (outside.ts); then the same pass without checks, to show what they add, and how many days the
 * checks take to cover every listed endpoint at the default interval.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '../../api/config.ts';
import { toDirectoryConfig } from '../../crawler/directories.ts';
import { discover } from '../../crawler/discover.ts';
import { toCheckBudget } from '../../crawler/probe-pass.ts';
import { countCheckedEndpoints } from '../../data/endpoint-checks.ts';
import { iterateProbeSlots } from '../../data/crawl.ts';
import { openDatabase } from '../../data/db.ts';
import { compiledChild } from './compiled.ts';
import { runProbePass } from './crawl-child.ts';
import { measureFreshness } from './freshness.ts';
import { keepOffServerCore, measureServer, reachedRate, startLoadGenerator } from './outside.ts';
import { round, type BenchGroup } from './report.ts';
import type { ServerReport } from './instrument.ts';
import { startServer } from './server-child.ts';

const SERVICES = Number(process.env.BENCH_CRAWL_SERVICES ?? 10_000);
const LOAD_SECONDS = 8;
/** The crawl reaches the fleet, which listens on the loopback address. */
const FLEET = { allowPrivate: '127.0.0.1' };
/**
 * The loads the API's p99 is measured under in the busy middle of the pass: flat out (the target), and a steady
 * 2,000 requests a second. Each is set against idle at the rate it reached (outside.ts, `reachedRate`).
 */
const API_LOADS: Array<{ label: string; rps?: number; maxRatio?: number }> = [
  { label: 'flat out', maxRatio: 2 },
  { label: 'at 2,000 req/s', rps: 2_000 },
];
/**
 * The API's loads during the pass start this far in: a pass opens with its slowest hosts, so its first seconds are
 * mostly waiting, and the busy middle is what the API must weather.
 */
const LOAD_DELAY_MS = 12_000;
const MB = 1024 * 1024;

export const crawlGroup: BenchGroup = {
  name: 'crawl',
  async run(emit) {
    const dir = mkdtempSync(join(tmpdir(), 'psi-bench-crawl-'));
    const fleet = fork(await compiledChild('scripts/bench/fleet-child.ts'), [String(SERVICES)], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    try {
      const ready = await new Promise<{ bazaar: string; expectedMs: number[]; ids: string[] }>((resolve) => fleet.once('message', resolve as never));
      const { bazaar, expectedMs } = ready;
      const databasePath = join(dir, 'crawl.db');
      const db = openDatabase(databasePath);
      await discover(db, { directories: [toDirectoryConfig(`bazaar=${bazaar}`)], now: () => new Date() });
      const ids = [...iterateProbeSlots(db)].map((slot) => slot.service_id);
      const checkable = countCheckedEndpoints(db);
      db.close();
      const msById = new Map(ready.ids.map((id, n) => [id, expectedMs[n] ?? 0]));

      const requestSeconds = expectedMs.reduce((sum, ms) => sum + ms, 0) / 1000;
      // The first pass knows nothing of how long each service takes; every later pass (what `npm start` runs on
      // its schedule) starts the hosts the pass before found slow first. Both are shown; the targets are the later's.
      const first = await runProbePass(databasePath, async () => {}, FLEET);
      const firstChecks = countPassChecks(databasePath, first.startedAt, msById);
      const firstBound = (requestSeconds + firstChecks.expectedSeconds) / first.concurrency;
      emit({
        label: 'first pass (no history)',
        value: `${round(ids.length / first.probeSeconds)} probes/s at concurrency ${first.concurrency}, ${round(firstBound / first.probeSeconds)}x of the bound, ` +
          `${round(first.peakRssBytes / MB)} MB; ${firstChecks.endpoints} endpoint and ${firstChecks.wildcards} wildcard checks`,
      });

      const api = await startServer('serve-app.ts', [databasePath]);
      const loadGenerator = await startLoadGenerator();
      const pinned = keepOffServerCore(api.pid, [loadGenerator.pid, fleet.pid!]);
      const paths = ids.map((id) => `/api/v1/services/${id}`);
      const measure = (rps?: number) => measureServer(api, loadGenerator, { paths, seconds: LOAD_SECONDS, rps });
      await loadGenerator.run({ url: api.url, paths, seconds: 2 });
      const idleFlatOut = await measure();
      const during: ServerReport[] = [];
      const crawl = await runProbePass(databasePath, async () => {
        await new Promise((resolve) => setTimeout(resolve, LOAD_DELAY_MS));
        for (const load of API_LOADS) during.push(await measure(load.rps));
      }, FLEET);
      // Idle again, at the rate each load reached during the pass.
      const idle: ServerReport[] = [];
      for (const report of during) idle.push(await measure(reachedRate(report, LOAD_SECONDS)));
      await api.stop();
      loadGenerator.stop();
      const checks = countPassChecks(databasePath, crawl.startedAt, msById);
      const boundSeconds = (requestSeconds + checks.expectedSeconds) / crawl.concurrency;

      const rate = ids.length / crawl.probeSeconds;
      emit({ label: 'probes per second', value: `${round(rate)}  (${ids.length} in ${round(crawl.probeSeconds)} s; then ${round(crawl.afterSeconds)} s to exit)`, target: { actual: rate, op: '>=', limit: 200, unit: '/s' } });
      const requests = ids.length + checks.endpoints + checks.wildcards;
      emit({ label: 'requests/s with checks', value: `${round(requests / crawl.probeSeconds)}  (${checks.endpoints} endpoint and ${checks.wildcards} wildcard checks beside the probes)` });
      const ofBound = boundSeconds / crawl.probeSeconds;
      emit({ label: 'share of concurrency bound', value: `${round(ofBound)}x  (bound ${round(boundSeconds)} s at concurrency ${crawl.concurrency}, checks included)`, target: { actual: ofBound, op: '>=', limit: 0.9, unit: 'x' } });
      const rssMb = crawl.peakRssBytes / MB;
      emit({ label: 'crawler peak RSS', value: `${round(rssMb)} MB`, target: { actual: rssMb, op: '<=', limit: 200, unit: ' MB' } });
      API_LOADS.forEach((load, index) => {
        const ratio = during[index]!.p99Ms / idle[index]!.p99Ms;
        emit({
          label: `API p99 in crawl, ${load.label}`,
          value: `${round(during[index]!.p99Ms)} ms at ${reachedRate(during[index]!, LOAD_SECONDS)} req/s  (${round(ratio)}x idle at that rate, ${round(idle[index]!.p99Ms)} ms` +
            `${load.rps === undefined ? `; idle flat out ${round(idleFlatOut.p99Ms)} ms at ${reachedRate(idleFlatOut, LOAD_SECONDS)} req/s` : ''}` +
            `${pinned ? '' : '; not kept off the server\'s core'})`,
          target: load.maxRatio === undefined ? undefined : { actual: ratio, op: '<=', limit: load.maxRatio, unit: 'x' },
        });
      });

      // The same scheduled pass without any check beside the probes: what the checks add to a pass.
      const bare = await runProbePass(databasePath, async () => {}, { ...FLEET, args: ['--check-budget', '0'] });
      const added = crawl.probeSeconds - bare.probeSeconds;
      emit({ label: 'checks add to a pass', value: `${round(added)} s (${round((100 * added) / bare.probeSeconds)} %): ${round(crawl.probeSeconds)} s with, ${round(bare.probeSeconds)} s without` });
      const passesPerDay = 86_400_000 / readConfig({}).probeIntervalMs;
      // Each day's wildcard checks (one a host) come out of the same budget; the rest of it checks endpoints.
      const endpointChecksPerDay = Math.max(1, toCheckBudget(ids.length) * passesPerDay - ids.length);
      const days = checkable / endpointChecksPerDay;
      emit({
        label: 'days to check all endpoints',
        value: `${round(days)}  (${checkable} endpoints beside the main ones; ${toCheckBudget(ids.length)} checks a pass, ${passesPerDay} passes a day, less ${ids.length} wildcard checks a day)`,
      });
    } finally {
      fleet.disconnect();
      rmSync(dir, { recursive: true, force: true });
    }
    await measureFreshness(emit);
  },
};

/**
 * The endpoint and wildcard checks a pass started at `since` made, and how long the fleet makes them take: an endpoint
 * answers after its service's delay, a random path at once (the fleet's 404 comes before any delay).
 */
function countPassChecks(databasePath: string, since: string, msById: Map<string, number>) {
  const db = openDatabase(databasePath);
  try {
    const rows = db.prepare(`SELECT service_id, count(*) AS n FROM endpoint_checks WHERE checked_at >= ? GROUP BY service_id`).all(since) as Array<{ service_id: string; n: number }>;
    const wildcards = (db.prepare(`SELECT count(*) AS n FROM wildcard_checks WHERE checked_at >= ?`).get(since) as { n: number }).n;
    const endpoints = rows.reduce((sum, row) => sum + row.n, 0);
    const expectedSeconds = rows.reduce((sum, row) => sum + row.n * (msById.get(row.service_id) ?? 0), 0) / 1000;
    return { endpoints, wildcards, expectedSeconds };
  } finally {
    db.close();
  }
}
