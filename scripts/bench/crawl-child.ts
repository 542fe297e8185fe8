/**
 * The crawl benchmarks' child: `scripts/crawl.ts --probe-only` run as `npm start` schedules it (compiled, capped heap,
 * lowered priority), with its probe phase timed and its memory and CPU sampled from /proc.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CRAWL_PROCESS, deprioritize } from '../../processes.ts';
import { compiledChild } from './compiled.ts';

export interface ProbePassOptions {
  /** The addresses the fleet listens on, which the guard must let the crawl reach (ALLOW_PRIVATE_TARGETS). */
  allowPrivate: string;
  /** More arguments for scripts/crawl.ts (`--concurrency`, `--check-budget`). */
  args?: string[];
  /** Environment the benchmark's own environment may override. */
  defaults?: Record<string, string>;
}

/** What a pass took: its probe phase and what follows until the child exits, its peak RSS and CPU, its summary's counts. */
export interface ProbePass {
  startedAt: string;
  concurrency: number;
  probeSeconds: number;
  afterSeconds: number;
  peakRssBytes: number;
  cpuSeconds: number;
  probed: number;
  live: number;
}

/**
 * Runs one probe pass and, once its probe phase starts (its `probes...` line), `whileProbing`; the phase ends at its
 * `submissions...` line. Throws with the end of its stderr when it fails.
 * @example const pass = await runProbePass(databasePath, async () => {}, { allowPrivate: '127.0.0.1' });
 */
export async function runProbePass(databasePath: string, whileProbing: () => Promise<unknown>, options: ProbePassOptions): Promise<ProbePass> {
  const startedAt = new Date().toISOString();
  const child = spawn(process.execPath, [...CRAWL_PROCESS.nodeArgs, await compiledChild('scripts/crawl.ts'), '--probe-only', ...(options.args ?? [])], {
    env: { ...options.defaults, ...process.env, DATABASE_PATH: databasePath, ALLOW_PRIVATE_TARGETS: options.allowPrivate },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  deprioritize(child);
  const usage = sampleUsage(child.pid!);
  let summary = '';
  let errors = '';
  child.stdout.on('data', (chunk: Buffer) => (summary += chunk.toString()));
  let probeStart = performance.now();
  let probeEnd: number | undefined;
  let load: Promise<unknown> = Promise.resolve();
  child.stderr.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    errors = (errors + text).slice(-2_000);
    if (text.includes('probes...')) {
      probeStart = performance.now();
      load = whileProbing();
    }
    if (text.includes('submissions...')) probeEnd = performance.now();
  });
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once('exit', (...exit) => resolve(exit)));
  const exitedAt = performance.now();
  const { peakRssBytes, cpuSeconds } = usage.stop();
  await load;
  if (code !== 0) throw new Error(`the crawl exited with ${code ?? signal}: ${errors}`);
  if (probeEnd === undefined) throw new Error('the crawl never reported the end of its probe phase ("submissions...")');
  const [, probed = 0, live = 0] = (/probes: (\d+), live (\d+)/.exec(summary) ?? []).map(Number);
  const concurrency = readPassConcurrency(summary);
  return { startedAt, concurrency, probeSeconds: (probeEnd - probeStart) / 1000, afterSeconds: (exitedAt - probeEnd) / 1000, peakRssBytes, cpuSeconds, probed, live };
}

/** The probes in flight a crawl's pass took, from its summary (scripts/crawl.ts prints it). */
export function readPassConcurrency(summary: string): number {
  const concurrency = Number(/\((\d+) in flight at most\)/.exec(summary)?.[1]);
  if (!concurrency) throw new Error(`the crawl's summary names no concurrency: ${summary.slice(0, 500)}`);
  return concurrency;
}

/** A process's peak RSS and its CPU time, read from /proc every 100 ms until stopped. */
function sampleUsage(pid: number) {
  let peakRssBytes = 0;
  let cpuSeconds = 0;
  const sampler = setInterval(() => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readProcFile(pid, 'status'));
    if (match) peakRssBytes = Math.max(peakRssBytes, Number(match[1]) * 1024);
    // utime and stime, in clock ticks (100 a second on Linux), after the process name in parentheses.
    const times = readProcFile(pid, 'stat').split(') ')[1]?.split(' ');
    if (times) cpuSeconds = (Number(times[11]) + Number(times[12])) / 100;
  }, 100);
  return {
    stop: () => {
      clearInterval(sampler);
      return { peakRssBytes, cpuSeconds };
    },
  };
}

/** A /proc file of the process, or '' once it has exited. */
function readProcFile(pid: number, name: string): string {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return '';
  }
}
