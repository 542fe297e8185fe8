/**
 * The `cycle` benchmark group: what one probe pass costs the published site. The synthetic services
 * (scripts/bench/synthetic.ts; 10,000, or `BENCH_CYCLE_SERVICES`) are built and published in full to a local
 * S3-compatible store (s3rver), then each of PASSES realistic passes five minutes apart gives every service a new
 * check, about 2 % of them changing state (live or not), written through the crawler's write path; the site is
 * rendered again incrementally (build-child.ts, its own process) and published (`npm run publish`, its own process).
 * The network side of a pass at scale is the crawl group's freshness figure; here the pass is its writes.
 * After each publish a replica refreshes from the Litestream replica the publish keeps (the bytes it fetched, as a
 * share of the copy it restored, and the time until its new copy is ready to swap in).
 * Targets: pass + render + publish within the 5-minute probe interval; objects uploaded per pass <= 25 % of the
 * release; a replica's bytes fetched per refresh <= 10 % of the database.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { refreshMirror } from '../../api/replica/mirror.ts';
import { openDatabase } from '../../data/db.ts';
import { litestreamPath, restoreCopy } from '../../data/litestream.ts';
import { completePublicCopy, readCopyGeneration } from '../../data/public-copy.ts';
import { recordProbes } from '../../data/probes.ts';
import type { ProbeInput } from '../../data/types.ts';
import { createS3Client, readTarget } from '../../site/publish/target.ts';
import { startLocalStore } from '../../site/publish/testing.ts';
import { runBuildChild } from './build.ts';
import { prepareDatabase } from './database.ts';
import { publish, TARGET } from './publish.ts';
import { round, type BenchGroup, type Figure } from './report.ts';

const SERVICES = Number(process.env.BENCH_CYCLE_SERVICES ?? 10_000);
const PASSES = 3;
/** One service in this many changes state in a pass (2 %). */
const CHANGE_EVERY = 50;
/** The synthetic probes end just before this; pass k is k probe intervals after it. */
const FIRST_PASS_MS = Date.parse('2026-11-01T00:00:00.000Z');
const INTERVAL_S = 300;
const WRITE_BATCH = 5_000;
const MB = 1024 * 1024;
/** The compile cache every build shares (inside the project: see site/build/compile.ts). */
const COMPILE_CACHE = join('node_modules', '.cache', 'psi-site');

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
    const full = await runBuildChild('full', database, distDir, COMPILE_CACHE);
    const published = await publish(env);
    emit({ label: 'release', value: `${data.services} services, ${full.pages} pages in ${round(full.seconds)} s; published in ${round(published.seconds)} s  (${published.summary})` });
    const replica = followReplica(store.env, join(dir, 'replica'));
    const first = await replica.refresh();
    emit({ label: 'replica: first copy', value: `${round(first.bytes / MB)} MB fetched (${first.objects} objects), a copy of ${round(first.size / MB)} MB restored; swap ready in ${round(first.seconds)} s` });

    for (let pass = 1; pass <= PASSES; pass++) {
      const at = new Date(FIRST_PASS_MS + pass * INTERVAL_S * 1000).toISOString();
      const written = writePass(database, at, pass);
      const render = await runBuildChild('refresh', database, distDir, COMPILE_CACHE);
      const upload = await publish(env);
      const { uploaded, unchanged, bytes } = readSummary(upload.summary);
      const share = uploaded / (uploaded + unchanged);
      const total = written.seconds + render.seconds + upload.seconds;
      emit({ label: `pass ${pass}: checks written`, value: `${round(written.seconds)} s  (${written.checks} checks, ${written.changed} changed state)` });
      emit({ label: `pass ${pass}: render`, value: `${round(render.seconds)} s  (${render.services} services, ${render.pages} pages; peak RSS ${round(render.peakRssBytes / MB)} MB)` });
      emit({
        label: `pass ${pass}: objects uploaded`,
        value: `${uploaded} of ${uploaded + unchanged}, ${round(share * 100)} %  (${round(bytes / MB)} MB in ${round(upload.seconds)} s)`,
        target: { actual: share * 100, op: '<=', limit: 25, unit: ' %' },
      });
      emit({ label: `pass ${pass}: pass + render + publish`, value: `${round(total)} s`, target: { actual: total, op: '<=', limit: INTERVAL_S, unit: ' s' } });
      const refresh = await replica.refresh();
      const fetched = refresh.bytes / refresh.size;
      emit({
        label: `pass ${pass}: replica bytes fetched`,
        value: `${round(refresh.bytes / MB)} MB of ${round(refresh.size / MB)} MB, ${round(fetched * 100)} %  (${refresh.objects} objects; swap ready in ${round(refresh.seconds)} s: fetch ${round(refresh.fetchSeconds)} s, restore ${round(refresh.seconds - refresh.fetchSeconds - refresh.deriveSeconds)} s, derive ${round(refresh.deriveSeconds)} s)`,
        target: { actual: fetched * 100, op: '<=', limit: 10, unit: ' %' },
      });
    }
  } finally {
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A replica's side of a refresh, as server/replica.ts does it: the mirror of the Litestream replica fetches what it
 * lacks, Litestream restores a copy, the copy's generation is read and its derived columns set; the replica then swaps
 * apps (instant). The share fetched is of the copy as restored.
 */
function followReplica(storeEnv: Record<string, string>, dir: string) {
  const target = readTarget(TARGET);
  const client = createS3Client(storeEnv);
  const mirror = join(dir, 'mirror');
  let sequence = 0;
  return {
    async refresh() {
      const started = performance.now();
      const fetched = await refreshMirror(client, target.bucket, litestreamPath(target.prefix), mirror, Number.MAX_SAFE_INTEGER);
      const fetchSeconds = (performance.now() - started) / 1000;
      const copy = join(dir, `index-${++sequence}.db`);
      await restoreCopy(mirror, copy);
      readCopyGeneration(copy);
      const size = statSync(copy).size;
      const restored = performance.now();
      completePublicCopy(copy);
      const deriveSeconds = (performance.now() - restored) / 1000;
      const seconds = (performance.now() - started) / 1000;
      rmSync(copy);
      return { bytes: fetched.bytes, objects: fetched.fetched, size, seconds, fetchSeconds, deriveSeconds };
    },
  };
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
