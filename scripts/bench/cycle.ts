/**
 * The `cycle` benchmark group: what one probe pass costs the published site. The synthetic services
 * (scripts/bench/synthetic.ts; 10,000, or `BENCH_CYCLE_SERVICES`) are built and published in full to a local
 * S3-compatible store (s3rver), then each of PASSES realistic passes five minutes apart gives every service a new
 * check, about 2 % of them changing state (live or not), written through the crawler's write path; the site is
 * rendered again incrementally (build-child.ts, its own process) and published (`npm run publish`, its own process).
 * The network side of a pass at scale is the crawl group's freshness figure; here the pass is its writes.
 * After each publish a replica refreshes from the Litestream replica the publish keeps (the bytes it fetched, as a
 * share of the copy it restored, and the time until its new copy is ready to swap in), in its own process.
 * Every process a step starts is sampled (processes.ts): its peak RSS and CPU seconds are reported beside the step.
 * `BENCH_CYCLE_PASSES` (default 3) sets the number of passes.
 * Targets: pass + render + publish within the 5-minute probe interval; objects uploaded per pass <= 25 % of the
 * release; a replica's bytes fetched per refresh <= 10 % of the database; peak RSS of each process <= 250 MB.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../data/db.ts';
import { recordProbes } from '../../data/probes.ts';
import type { ProbeInput } from '../../data/types.ts';
import { startLocalStore } from '../../site/publish/testing.ts';
import { runBenchChild, runBuildChild } from './build.ts';
import { prepareDatabase } from './database.ts';
import { measureProcesses, type ProcessFigures } from './processes.ts';
import { publish, TARGET } from './publish.ts';
import type { ReplicaChildReport } from './replica-child.ts';
import { round, type BenchGroup, type Figure } from './report.ts';

const SERVICES = Number(process.env.BENCH_CYCLE_SERVICES ?? 10_000);
const PASSES = Number(process.env.BENCH_CYCLE_PASSES ?? 3);
/** One service in this many changes state in a pass (2 %). */
const CHANGE_EVERY = 50;
/** The synthetic probes end just before this; pass k is k probe intervals after it. */
const FIRST_PASS_MS = Date.parse('2026-11-01T00:00:00.000Z');
const INTERVAL_S = 300;
const WRITE_BATCH = 5_000;
const MB = 1024 * 1024;
/** The compile cache every build shares (inside the project: see site/build/compile.ts). */
const COMPILE_CACHE = join('node_modules', '.cache', 'psi-site');
const REPLICA_CHILD = fileURLToPath(new URL('./replica-child.ts', import.meta.url));
const RSS_LIMIT_MB = 250;

export const cycleGroup: BenchGroup = { name: 'cycle', run };

async function run(emit: (figure: Figure) => void): Promise<void> {
  const data = prepareDatabase(SERVICES);
  const dir = mkdtempSync(join(tmpdir(), 'psi-bench-cycle-'));
  const store = await startLocalStore(['bench']);
  try {
    const database = join(dir, 'services.db');
    copyFileSync(data.path, database);
    const distDir = join(dir, 'dist');
    const env = { ...process.env, ...store.env, DATABASE_PATH: resolve(database), DIST_DIR: distDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    const full = await measureProcesses(() => runBuildChild('full', database, distDir, COMPILE_CACHE));
    emit({ label: 'release: render', value: `${data.services} services, ${full.result.pages} pages in ${round(full.result.seconds)} s  (${describeProcesses(full.processes)})` });
    const published = await measureProcesses(() => publish(env));
    emit({ label: 'release: publish', value: `${round(published.result.seconds)} s  (${published.result.summary}; ${describeProcesses(published.processes)})` });
    emitPeaks(emit, 'release', [...full.processes, ...published.processes]);
    const replica = followReplica(store.env, join(dir, 'replica'));
    const first = await measureProcesses(() => replica.refresh());
    emit({ label: 'replica: first copy', value: `${round(first.result.bytes / MB)} MB fetched (${first.result.objects} objects), a copy of ${round(first.result.size / MB)} MB restored; swap ready in ${round(first.result.seconds)} s  (${describeProcesses(first.processes)})` });
    emitPeaks(emit, 'replica: first copy', first.processes);

    for (let pass = 1; pass <= PASSES; pass++) {
      const at = new Date(FIRST_PASS_MS + pass * INTERVAL_S * 1000).toISOString();
      const cpuBefore = process.cpuUsage();
      const written = writePass(database, at, pass);
      const writeCpu = process.cpuUsage(cpuBefore);
      const render = await measureProcesses(() => runBuildChild('refresh', database, distDir, COMPILE_CACHE));
      const upload = await measureProcesses(() => publish(env));
      const { uploaded, unchanged, bytes } = readSummary(upload.result.summary);
      const share = uploaded / (uploaded + unchanged);
      const total = written.seconds + render.result.seconds + upload.result.seconds;
      emit({ label: `pass ${pass}: checks written`, value: `${round(written.seconds)} s  (${written.checks} checks, ${written.changed} changed state; ${round((writeCpu.user + writeCpu.system) / 1e6)} CPU s)` });
      emit({ label: `pass ${pass}: render`, value: `${round(render.result.seconds)} s  (${render.result.services} services, ${render.result.pages} pages; ${describeProcesses(render.processes)})` });
      emit({
        label: `pass ${pass}: objects uploaded`,
        value: `${uploaded} of ${uploaded + unchanged}, ${round(share * 100)} %  (${round(bytes / MB)} MB in ${round(upload.result.seconds)} s; ${describeProcesses(upload.processes)})`,
        target: { actual: share * 100, op: '<=', limit: 25, unit: ' %' },
      });
      emit({ label: `pass ${pass}: pass + render + publish`, value: `${round(total)} s`, target: { actual: total, op: '<=', limit: INTERVAL_S, unit: ' s' } });
      const refresh = await measureProcesses(() => replica.refresh());
      const fetched = refresh.result.bytes / refresh.result.size;
      emit({
        label: `pass ${pass}: replica bytes fetched`,
        value: `${round(refresh.result.bytes / MB)} MB of ${round(refresh.result.size / MB)} MB, ${round(fetched * 100)} %  (${refresh.result.objects} objects; swap ready in ${round(refresh.result.seconds)} s: fetch ${round(refresh.result.fetchSeconds)} s, restore ${round(refresh.result.seconds - refresh.result.fetchSeconds - refresh.result.deriveSeconds)} s, derive ${round(refresh.result.deriveSeconds)} s; ${describeProcesses(refresh.processes)})`,
        target: { actual: fetched * 100, op: '<=', limit: 10, unit: ' %' },
      });
      emitPeaks(emit, `pass ${pass}`, [...render.processes, ...upload.processes, ...refresh.processes]);
    }
  } finally {
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A replica's side of a refresh, in its own process (replica-child.ts, with the server's node flags: a replica
 * refreshes in its server process); the replica then swaps apps (instant).
 */
function followReplica(storeEnv: Record<string, string>, dir: string) {
  const mirror = join(dir, 'mirror');
  mkdirSync(dir, { recursive: true });
  let sequence = 0;
  return {
    async refresh(): Promise<ReplicaChildReport> {
      const copy = join(dir, `index-${++sequence}.db`);
      try {
        return await runBenchChild<ReplicaChildReport>(REPLICA_CHILD, [TARGET, mirror, copy], storeEnv);
      } finally {
        rmSync(copy, { force: true });
      }
    },
  };
}

/** `node build-child.ts 281 MB 40 CPU s, litestream restore 30 MB 2 CPU s`: each process a step started. */
function describeProcesses(processes: ProcessFigures[]): string {
  const named = processes.filter((figures) => !/esbuild/.test(figures.command));
  return named.map((figures) => `${figures.command.replace(/^node /, '')} ${round(figures.peakRssBytes / MB)} MB ${round(figures.cpuSeconds)} CPU s`).join(', ');
}

/** One figure with a target for the largest process a step started (the esbuild service tsx starts aside). */
function emitPeaks(emit: (figure: Figure) => void, step: string, processes: ProcessFigures[]): void {
  const named = processes.filter((figures) => !/esbuild/.test(figures.command));
  const largest = named.reduce<ProcessFigures | null>((top, figures) => (top && top.peakRssBytes >= figures.peakRssBytes ? top : figures), null);
  if (!largest) return;
  const peak = largest.peakRssBytes / MB;
  emit({ label: `${step}: largest process`, value: `${largest.command} ${round(peak)} MB`, target: { actual: peak, op: '<=', limit: RSS_LIMIT_MB, unit: ' MB' } });
}

/** A new check of every service at `at`, the result it had before except for one in CHANGE_EVERY (shifted per pass). */
function writePass(database: string, at: string, pass: number): { seconds: number; checks: number; changed: number } {
  const db = openDatabase(database);
  try {
    const rows = db.prepare('SELECT id, live FROM services ORDER BY id').all() as Array<{ id: string; live: number | null }>;
    const probes: ProbeInput[] = rows.map(({ id, live }, k) => {
      const ok = (k + pass) % CHANGE_EVERY === 0 ? live !== 1 : live === 1;
      return {
        service_id: id, probed_at: at, ok, status_code: ok ? 402 : 404, method: 'GET', latency_ms: 40 + ((k * 37) % 400),
        reason: ok ? null : 'no payment challenge (HTTP 404)', detected_rails: ok ? ['x402'] : [],
      };
    });
    const started = performance.now();
    for (let first = 0; first < probes.length; first += WRITE_BATCH) recordProbes(db, probes.slice(first, first + WRITE_BATCH));
    const changed = rows.filter((_, k) => (k + pass) % CHANGE_EVERY === 0).length;
    return { seconds: (performance.now() - started) / 1000, checks: probes.length, changed };
  } finally {
    db.close();
  }
}

/** The figures of `npm run publish`'s summary: `12 uploaded (3.4 MiB), 40000 unchanged, 0 deleted`. */
function readSummary(summary: string): { uploaded: number; unchanged: number; bytes: number } {
  const match = /(\d+) uploaded \(([\d.]+) (KiB|MiB)\), (\d+) unchanged/.exec(summary);
  if (!match) throw new Error(`the publish summary is not one this bench reads: ${summary}`);
  return { uploaded: Number(match[1]), unchanged: Number(match[4]), bytes: Number(match[2]) * (match[3] === 'MiB' ? MB : 1024) };
}
