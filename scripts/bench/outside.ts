/**
 * The benchmark's stand-ins for the world outside the host: the load generator (remote clients) and the fleet (remote
 * services). On a real host neither takes the server's CPU; on a two-core machine the scheduler moves them onto the
 * server's core as soon as a crawl fills the other one, and the API then waits on them rather than on the crawl
 * (BENCHMARKS.md, eighth session). So while the crawl group measures the API, they run on the other cores, and the
 * load generator, whose own speed is not a figure, only on CPU time the host leaves.
 */
import { execFileSync, fork } from 'node:child_process';
import { availableParallelism, constants, setPriority } from 'node:os';
import { compiledChild } from './compiled.ts';
import type { LoadAnswer, LoadOrder } from './load-child.ts';
import type { LoadResult } from './load.ts';
import type { ServerReport } from './instrument.ts';
import type { ServerChild } from './server-child.ts';

export interface LoadGenerator {
  pid: number;
  run(order: LoadOrder): Promise<LoadResult>;
  stop(): void;
}

/**
 * Forks the load generator at the lowest priority.
 * @example const load = await startLoadGenerator(); await load.run({ url, paths, seconds: 8 }); load.stop();
 */
export async function startLoadGenerator(): Promise<LoadGenerator> {
  const child = fork(await compiledChild('scripts/bench/load-child.ts'), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  setPriority(child.pid!, constants.priority.PRIORITY_LOW);
  return {
    pid: child.pid!,
    run: (order) =>
      new Promise((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`the load generator exited (code ${code}) during a load`));
        child.once('exit', onExit);
        child.once('message', (answer: LoadAnswer) => {
          child.off('exit', onExit);
          if ('error' in answer) reject(new Error(answer.error));
          else resolve(answer.result);
        });
        child.send(order);
      }),
    stop: () => child.disconnect(),
  };
}

/**
 * Pins `server` (every thread) to the first CPU and each of `outside` to the others, with util-linux's `taskset`
 * (Node cannot set an affinity). Answers false, pinning nothing more, with one CPU or without `taskset`.
 * @example keepOffServerCore(api.pid, [load.pid, fleet.pid!]);
 */
export function keepOffServerCore(server: number, outside: number[]): boolean {
  const cpus = availableParallelism();
  return cpus >= 2 && setAffinity(server, '0') && outside.every((pid) => setAffinity(pid, `1-${cpus - 1}`));
}

function setAffinity(pid: number, cpuList: string): boolean {
  try {
    execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', cpuList, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The server's own figures (p99 of its handling) under one load from the load generator: as fast as it goes, or at
 * `rps` requests a second.
 * @example const idle = await measureServer(api, load, { paths, seconds: 8, rps: 2_000 });
 */
export async function measureServer(
  server: Pick<ServerChild, 'url' | 'reset' | 'report'>,
  load: LoadGenerator,
  order: { paths: string[]; seconds: number; rps?: number },
): Promise<ServerReport> {
  await server.reset();
  await load.run({ url: server.url, ...order });
  return server.report();
}

/**
 * The request rate to set a busy load against at idle. The server's p99 rises as its rate falls (on an idle machine,
 * 0.23 ms at 7,000 req/s and 0.50 ms at 150: caches go cold between requests), and flat out beside a crawl the load
 * generator, which gets only the CPU time the host leaves, sends a fraction of what it sends idle: set against idle
 * flat out, a ratio would measure the load generator's starvation rather than the server (BENCHMARKS.md, eleventh
 * session). So a load is compared with idle at the rate it reached.
 */
export function reachedRate(report: ServerReport, seconds: number): number {
  return Math.max(1, Math.round(report.requests / seconds));
}
