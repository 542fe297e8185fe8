/**
 * Freshness at scale, in the crawl group: one probe pass over 100,000 fleet services (each its own host, the crawl
 * benchmark's latency spread; the first, with no history, so every service's liveness, terms and change are written)
 * by the real `npm run crawl --probe-only` at the concurrency it takes by itself, as `npm start` schedules it
 * (compiled, capped heap, lowered priority), must finish within the default probe interval (5 min), with the
 * crawler's peak RSS at most 200 MB and the API's p99 (flat out, on the 100,000 services' details) at most twice
 * idle at the rate it reached (outside.ts, `reachedRate`). `BENCH_FRESHNESS_SERVICES` sets the size (0 skips it);
 * `BENCH_FRESHNESS_CONCURRENCY` gives the pass a concurrency.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toServiceId } from '../../domain/service-id.ts';
import { openDatabase } from '../../data/db.ts';
import { upsertServices } from '../../data/services.ts';
import type { ServiceInput } from '../../data/types.ts';
import { CRAWL_PROCESS } from '../../processes.ts';
import { compiledChild } from './compiled.ts';
import { runProbePass } from './crawl-child.ts';
import { keepOffServerCore, measureServer, reachedRate, startLoadGenerator } from './outside.ts';
import { round, type BenchGroup } from './report.ts';
import { startServer } from './server-child.ts';

const SERVICES = Number(process.env.BENCH_FRESHNESS_SERVICES ?? 100_000);
const CONCURRENCY = process.env.BENCH_FRESHNESS_CONCURRENCY;
/** `PROBE_INTERVAL`'s default: a pass must end before the next is due. */
const INTERVAL_S = 300;
const LOAD_SECONDS = 8;
/** The API is measured in the busy middle of the pass, once its opening (connections ramping up) is behind it. */
const LOAD_DELAY_MS = 30_000;
const WRITE_BATCH = 5_000;
const MB = 1024 * 1024;
const PRICE = { usd: 0.01, display: '$0.01 / call' };

type FleetMessage = { endpoints: Array<{ url: string; method: string | null }>; expectedMs: number[] };

export const measureFreshness: BenchGroup['run'] = async (emit) => {
  if (SERVICES <= 0) return;
  const dir = mkdtempSync(join(tmpdir(), 'psi-bench-freshness-'));
  const fleet = fork(await compiledChild('scripts/bench/freshness-fleet-child.ts'), [String(SERVICES)], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const { endpoints, expectedMs } = await new Promise<FleetMessage>((resolve) => fleet.once('message', resolve as never));
    const databasePath = join(dir, 'freshness.db');
    writeServices(databasePath, endpoints);

    const api = await startServer('serve-app.ts', [databasePath]);
    const loadGenerator = await startLoadGenerator();
    const pinned = keepOffServerCore(api.pid, [loadGenerator.pid, fleet.pid!]);
    const paths = endpoints.map(({ url }) => `/api/v1/services/${toServiceId(url)}`);
    const measure = (rps?: number) => measureServer(api, loadGenerator, { paths, seconds: LOAD_SECONDS, rps });
    await loadGenerator.run({ url: api.url, paths, seconds: 2 });
    const idleFlatOut = await measure();
    let during = idleFlatOut;
    const pass = await runProbePass(databasePath, async () => {
      await new Promise((resolve) => setTimeout(resolve, LOAD_DELAY_MS));
      during = await measure();
    }, {
      allowPrivate: '127.0.0.0/8',
      args: CONCURRENCY === undefined ? [] : ['--concurrency', CONCURRENCY],
      defaults: CRAWL_PROCESS.env,
    });
    const idle = await measure(reachedRate(during, LOAD_SECONDS));
    await api.stop();
    loadGenerator.stop();

    const boundSeconds = expectedMs.reduce((sum, ms) => sum + ms, 0) / 1000 / pass.concurrency;
    if (pass.probed !== SERVICES) throw new Error(`the freshness pass probed ${pass.probed} of ${SERVICES} services`);
    emit({
      label: `pass over ${round(SERVICES / 1000)}k services`,
      value: `${round(pass.probeSeconds)} s  (at concurrency ${pass.concurrency}, bound ${round(boundSeconds)} s; ${pass.live} live; then ${round(pass.afterSeconds)} s to exit)`,
      target: { actual: pass.probeSeconds, op: '<=', limit: INTERVAL_S, unit: ' s' },
    });
    emit({ label: 'pass probes per second', value: `${round(SERVICES / pass.probeSeconds)}  (${round(boundSeconds / pass.probeSeconds)}x of the bound)` });
    emit({ label: 'pass crawler CPU', value: `${round(pass.cpuSeconds)} s  (${round((pass.cpuSeconds * 1000) / SERVICES)} ms a probe; ${round(pass.cpuSeconds / pass.probeSeconds)} of a core)` });
    const rssMb = pass.peakRssBytes / MB;
    emit({ label: 'pass crawler peak RSS', value: `${round(rssMb)} MB`, target: { actual: rssMb, op: '<=', limit: 200, unit: ' MB' } });
    const ratio = during.p99Ms / idle.p99Ms;
    emit({
      label: 'pass API p99, flat out',
      value: `${round(during.p99Ms)} ms at ${reachedRate(during, LOAD_SECONDS)} req/s  (${round(ratio)}x idle at that rate, ${round(idle.p99Ms)} ms; ` +
        `idle flat out ${round(idleFlatOut.p99Ms)} ms at ${reachedRate(idleFlatOut, LOAD_SECONDS)} req/s${pinned ? '' : '; not kept off the server\'s core'})`,
      target: { actual: ratio, op: '<=', limit: 2, unit: 'x' },
    });
  } finally {
    fleet.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
};

/** One service per fleet host, as a directory would list it, written in batches. */
function writeServices(databasePath: string, endpoints: FleetMessage['endpoints']): void {
  const db = openDatabase(databasePath);
  const now = new Date().toISOString();
  const toService = ({ url, method }: FleetMessage['endpoints'][number], n: number): ServiceInput => ({
    id: toServiceId(url), name: `Fleet service ${n}`, category: 'data', description: `Fleet service ${n} quote`,
    endpoint: url, facilitator: null, price: PRICE, rails: ['x402'], chains: ['base-sepolia'], assets: ['USDC'],
    sources: [{ source: 'bazaar', url: null }],
    endpoints: [{ url, method, description: null, price: PRICE, rails: ['x402'], chains: ['base-sepolia'], assets: ['USDC'] }],
  });
  for (let start = 0; start < endpoints.length; start += WRITE_BATCH) {
    upsertServices(db, endpoints.slice(start, start + WRITE_BATCH).map((e, i) => toService(e, start + i)), now);
  }
  db.close();
}
