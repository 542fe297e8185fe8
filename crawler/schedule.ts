import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { CRAWL_PROCESS, deprioritize } from '../processes.ts';
import { compiledPath, PROJECT_ROOT, RUNS_COMPILED } from '../project.ts';

const CRAWL_SCRIPT = 'scripts/crawl.ts';

/**
 * The node arguments that run one crawl: its compiled JavaScript with plain node when this process runs compiled
 * (`npm start`), else its TypeScript source under tsx (tests); with the crawl's node flags either way (processes.ts).
 * @example spawn(process.execPath, [...crawlNodeArgs(), '--probe-only']);
 */
export function crawlNodeArgs(): string[] {
  return RUNS_COMPILED
    ? [...CRAWL_PROCESS.nodeArgs, compiledPath(CRAWL_SCRIPT)]
    : ['--import', 'tsx', ...CRAWL_PROCESS.nodeArgs, join(PROJECT_ROOT, CRAWL_SCRIPT)];
}

/** While a pass runs, pages are refreshed this often. */
export const DEFAULT_PROGRESS_EVERY_MS = 30_000;

export interface CrawlScheduleOptions {
  probeIntervalMs: number;
  discoveryIntervalMs: number;
  /** Environment of each crawl (DATABASE_PATH, STAGING_URL = the server's own origin, ALLOW_PRIVATE_TARGETS...). */
  env: NodeJS.ProcessEnv;
  /** Called after each pass, e.g. to re-render the pages whose data changed. */
  onPassFinished?: (exitCode: number | null) => void | Promise<void>;
  /**
   * Called every `progressEveryMs` while a pass runs (never while the previous call is still running), so pages
   * follow the results as they arrive rather than only when the pass ends.
   */
  onPassProgress?: () => void | Promise<void>;
  /** Default 30 s. */
  progressEveryMs?: number;
  log?: (line: string) => void;
}

/**
 * Keeps the index fresh from `npm start`: a probe pass every `probeIntervalMs` and discovery every
 * `discoveryIntervalMs`, each in a child process (so the API never stalls) and never two at once; the first pass
 * starts right away. Answers a function that stops the schedule and the pass in flight.
 * @example const stop = startCrawlSchedule({ probeIntervalMs: 300_000, discoveryIntervalMs: 3_600_000, env: process.env });
 */
export function startCrawlSchedule(options: CrawlScheduleOptions): () => Promise<void> {
  let child: ChildProcess | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let lastDiscoveryMs = -Infinity;

  const runPass = () => {
    timer = null;
    const discover = Date.now() - lastDiscoveryMs >= options.discoveryIntervalMs;
    if (discover) lastDiscoveryMs = Date.now();
    // --brief: the console of a long-running server gets one line for the directories that failed, not one each.
    child = spawn(process.execPath, [...crawlNodeArgs(), '--brief', ...(discover ? [] : ['--probe-only'])], {
      env: { ...CRAWL_PROCESS.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    deprioritize(child);
    const stopProgress = followProgress(options);
    child.stdout?.on('data', (chunk: Buffer) => options.log?.(chunk.toString().trimEnd()));
    child.stderr?.on('data', (chunk: Buffer) => options.log?.(chunk.toString().trimEnd()));
    child.on('exit', async (code) => {
      child = null;
      await stopProgress();
      await options.onPassFinished?.(code);
      if (!stopped) timer = setTimeout(runPass, options.probeIntervalMs);
    });
  };
  runPass();

  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const running = child;
    if (running) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    }
  };
}

/** Calls `onPassProgress` on a timer until stopped; stopping waits for a call in flight. */
function followProgress(options: CrawlScheduleOptions): () => Promise<void> {
  const onProgress = options.onPassProgress;
  if (!onProgress) return async () => {};
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = Promise.resolve(onProgress()).catch(() => undefined).finally(() => {
      running = null;
    });
  }, options.progressEveryMs ?? DEFAULT_PROGRESS_EVERY_MS);
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/**
 * An interval in the words a console uses.
 * @example formatInterval(300_000) // '5 min'; formatInterval(3_600_000) // '1 h'
 */
export function formatInterval(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
