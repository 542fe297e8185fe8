import type { ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';

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
  /** The SQLite page cache of the process's database connection, in KiB; better-sqlite3's default (16,000) when absent. */
  databaseCacheKiB?: number;
}

/**
 * The server: 2 MB semi-spaces (V8's default is 16 MB) and an old generation that grows by a third after each full
 * collection, so its RSS follows the live heap; two glibc malloc arenas, where glibc gives each thread that allocates
 * one of its own (up to eight per core), each holding freed memory apart; a 2 MB page cache, since a lookup reads one
 * service's rows at random among 100,000 and the operating system's cache serves the pages a larger one would hold
 * (docs/decisions.md).
 */
export const SERVER_PROCESS: ProcessSettings = {
  nodeArgs: ['--max-semi-space-size=2', '--heap-growing-percent=35'],
  env: { MALLOC_ARENA_MAX: '2' },
  databaseCacheKiB: 2_000,
};

/**
 * A crawl: the heap is capped so V8 collects the probes' garbage early instead of growing, with 8 MB semi-spaces so
 * a busy pass spends less of its time scavenging; one resolver thread per probe in flight (MAX_PROBE_CONCURRENCY),
 * so no probe waits for another's lookup. Half better-sqlite3's default page cache: a pass reads and writes one
 * service at a time, in id order, so a larger cache holds little it asks for again, and the operating system's cache
 * serves the rest; the crawl child's RSS target (200 MB over 100,000 services) counts every megabyte of it.
 */
export const CRAWL_PROCESS: ProcessSettings = {
  nodeArgs: ['--max-old-space-size=128', '--max-semi-space-size=8'],
  env: { UV_THREADPOOL_SIZE: '128' },
  databaseCacheKiB: 8_000,
};

/**
 * A publish (`npm run publish`, scripts/publish.ts): the heap is capped so V8 collects the listing's and the plan's
 * garbage instead of growing the heap past them (with a live set of some hundred MB at 400,000 files, it let the
 * heap grow to several times that before a full collection); 4 MB semi-spaces, as the server's; two glibc malloc
 * arenas, since the reads of 32 files at once on libuv's threads would each hold freed memory in an arena of their
 * own. The public copy's child (scripts/publish-copy.ts) runs with the same flags.
 */
export const PUBLISH_PROCESS: ProcessSettings = {
  nodeArgs: ['--max-old-space-size=160', '--max-semi-space-size=4'],
  env: { MALLOC_ARENA_MAX: '2' },
};

/**
 * The niceness of the server's background children (a crawl, the webhook delivery worker): they yield the CPU to the
 * API they run beside, since readers must not wait on a probe pass or a burst of deliveries.
 */
export const BACKGROUND_NICENESS = 10;

/** Lowers a background child's scheduling priority (best effort: not every platform allows it). */
export function deprioritize(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) setPriority(child.pid, BACKGROUND_NICENESS);
  } catch {
    // Without permission to renice, the child simply runs at normal priority.
  }
}

/**
 * Takes a process's own environment settings out of the environment its children inherit: glibc has read them at
 * start, and a child runs with its own settings (a crawl with CRAWL_PROCESS's).
 * @example keepSettingsOwn(SERVER_PROCESS); // at the server's start, before it starts a crawl
 */
export function keepSettingsOwn(settings: ProcessSettings, env: NodeJS.ProcessEnv = process.env): void {
  for (const name of Object.keys(settings.env)) delete env[name];
}

/** Each process by the name `node .build/scripts/node-args.mjs` takes. */
export const PROCESSES: Readonly<Record<string, ProcessSettings>> = { server: SERVER_PROCESS, crawl: CRAWL_PROCESS, publish: PUBLISH_PROCESS };
