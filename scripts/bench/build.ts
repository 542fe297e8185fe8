/**
 * The `build` benchmark group: the site built from 10,000 synthetic services (scripts/bench/synthetic.ts) in a
 * child process: a full build with a cold compile (seconds, pages per second, peak memory), then the render
 * after 1 % of the services changed (100 probed again, 10 of them also re-listed with a new description).
 * Targets: full build <= 60 s, rebuild after a 1 % change <= 10 s, peak RSS <= 1 GB.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../data/db.ts';
import { listServiceIds } from '../../data/pages.ts';
import { recordProbe } from '../../data/probes.ts';
import { upsertServices } from '../../data/services.ts';
import { SERVER_PROCESS } from '../../processes.ts';
import type { BuildChildReport } from './build-child.ts';
import { prepareDatabase } from './database.ts';
import { round, type BenchGroup, type Figure } from './report.ts';
import { syntheticService } from './synthetic.ts';

const SERVICES = 10_000;
const CHANGED = SERVICES / 100;
const MB = 1024 * 1024;
const CHILD = fileURLToPath(new URL('./build-child.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const buildGroup: BenchGroup = { name: 'site', run };

async function run(emit: (figure: Figure) => void): Promise<void> {
  const data = prepareDatabase(SERVICES);
  const dir = mkdtempSync(join(tmpdir(), 'psi-bench-build-'));
  // A compile cache of its own, so the full build includes compiling the site (inside the project: see compile.ts).
  const cache = join('node_modules', '.cache', `psi-site-bench-${process.pid}`);
  try {
    const database = join(dir, 'services.db');
    copyFileSync(data.path, database);
    const distDir = join(dir, 'dist');
    emit({ label: 'data', value: `${data.services} services, ${data.endpoints} endpoints, ${data.probes} probes` });

    const full = await runBuildChild('full', database, distDir, cache);
    emit({ label: 'full build', value: `${round(full.seconds)} s  (compile ${round(full.compileSeconds ?? 0)} s)`, target: { actual: full.seconds, op: '<=', limit: 60, unit: ' s' } });
    emit({ label: 'pages per second', value: `${round(full.pages / full.seconds)}  (${full.pages} pages)` });
    const peak = Math.max(full.peakRssBytes, full.compilePeakRssBytes ?? 0) / MB;
    emit({
      label: 'full build peak rss',
      value: `${peak.toFixed(0)} MB  (render ${(full.peakRssBytes / MB).toFixed(0)}, compile ${full.compilePeakRssBytes === null ? 'n/a' : (full.compilePeakRssBytes / MB).toFixed(0)})`,
      target: { actual: peak, op: '<=', limit: 1024, unit: ' MB' },
    });

    changeOnePercent(database);
    const refresh = await runBuildChild('refresh', database, distDir, cache);
    emit({
      label: 'rebuild after 1 % change',
      value: `${round(refresh.seconds)} s  (${refresh.services} services)`,
      target: { actual: refresh.seconds, op: '<=', limit: 10, unit: ' s' },
    });
    emit({ label: 'rebuild peak rss', value: `${(refresh.peakRssBytes / MB).toFixed(0)} MB`, target: { actual: refresh.peakRssBytes / MB, op: '<=', limit: 1024, unit: ' MB' } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(PROJECT_ROOT, cache), { recursive: true, force: true });
  }
}

/** Probes 1 % of the services again, with the opposite result, and re-lists a tenth of those with a new description. */
export function changeOnePercent(database: string): void {
  const db = openDatabase(database);
  try {
    const ids = listServiceIds(db);
    const step = Math.floor(ids.length / CHANGED);
    const changed = Array.from({ length: CHANGED }, (_, k) => ({ id: ids[k * step]!, index: k }));
    const at = '2026-11-01T11:30:00.000Z';
    db.transaction(() => {
      for (const { id } of changed) {
        const live = (db.prepare('SELECT live FROM services WHERE id = ?').get(id) as { live: number | null }).live === 1;
        recordProbe(db, {
          service_id: id, probed_at: at, ok: !live, status_code: live ? 503 : 402, method: 'GET', latency_ms: 321,
          reason: live ? 'server error (HTTP 503)' : null, detected_rails: [],
        });
      }
    })();
    const relist = new Set(changed.filter(({ index }) => index % 10 === 0).map(({ id }) => id));
    const relisted = Array.from({ length: SERVICES }, (_, i) => syntheticService(i))
      .filter((service) => relist.has(service.id))
      .map((service) => ({ ...service, description: `${service.description} Changed.` }));
    upsertServices(db, relisted, at);
  } finally {
    db.close();
  }
}

/**
 * One measured build (build-child.ts) in its own process, compiling into `cache` (a folder inside the project). The
 * process has the server's node flags: the index renders its pages in the server process (server/main.ts refreshes the
 * site after each pass), so its heap settings are the render's.
 */
export function runBuildChild(mode: 'full' | 'refresh', database: string, distDir: string, cache: string): Promise<BuildChildReport> {
  return runBenchChild<BuildChildReport>(CHILD, [mode, database, distDir], { PSI_SITE_CACHE: cache });
}

/**
 * A bench script in a child process with the server's node flags; answers the JSON of its last line.
 * @example await runBenchChild<BuildChildReport>(CHILD, ['full', database, distDir], { PSI_SITE_CACHE: cache })
 */
export function runBenchChild<T>(script: string, args: string[], env: Record<string, string>): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SERVER_PROCESS.nodeArgs, '--import', 'tsx', script, ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = output.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as T);
      else reject(new Error(`${script} ${args[0] ?? ''} exited ${code}: ${(errors || output).trim().slice(-2000)}`));
    });
  });
}
