/**
 * The node flags and environment each of the index's processes runs with, declared once: `npm start` reads the
 * server's (package.json's start script asks scripts/node-args.ts), and the crawl's are the same whether `npm start` schedules it
 * (crawler/schedule.ts) or `npm run crawl` runs it (scripts/run-crawl.ts).
 */
export interface ProcessSettings {
  /** Node's own flags, given before the script. */
  nodeArgs: readonly string[];
  /** Environment the process starts with; the caller's environment overrides it. */
  env: Readonly<Record<string, string>>;
}

/**
 * The server: 4 MB semi-spaces (V8's default is 16 MB) and an old generation that grows by half after each full
 * collection, so its RSS follows the live heap (docs/decisions.md).
 */
export const SERVER_PROCESS: ProcessSettings = {
  nodeArgs: ['--max-semi-space-size=4', '--heap-growing-percent=50'],
  env: {},
};

/**
 * A crawl: the heap is capped so V8 collects the probes' garbage early instead of growing, with 8 MB semi-spaces so
 * a busy pass spends less of its time scavenging; one resolver thread per probe in flight (MAX_PROBE_CONCURRENCY),
 * so no probe waits for another's lookup.
 */
export const CRAWL_PROCESS: ProcessSettings = {
  nodeArgs: ['--max-old-space-size=128', '--max-semi-space-size=8'],
  env: { UV_THREADPOOL_SIZE: '128' },
};

/** Each process by the name `node .build/scripts/node-args.mjs` takes. */
export const PROCESSES: Readonly<Record<string, ProcessSettings>> = { server: SERVER_PROCESS, crawl: CRAWL_PROCESS };
