import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * Litestream (v0.3, the binary `@flydotio/litestream-linux-x64` ships through npm) replicates the public copy's WAL to an
 * S3-compatible store and rebuilds a copy from it. It runs only while the copy is written: it must hold the file
 * before the first write (a write it did not see starts a new generation, a whole snapshot for every replica), and on
 * SIGTERM it ships what is left and exits.
 */

/** The folder under a publish target's prefix that holds its Litestream replica. */
export const LITESTREAM_FOLDER = 'litestream';

/**
 * The key prefix of the Litestream replica of a publish target's prefix (empty or ending in `/`).
 * @example litestreamPath('index/') // 'index/litestream'
 */
export const litestreamPath = (prefix: string) => `${prefix}${LITESTREAM_FOLDER}`;

/** Where a Litestream replica lives in an S3-compatible store, and how often it takes a whole snapshot. */
export interface LitestreamReplica {
  bucket: string;
  /** The key prefix of the replica, without a trailing slash (`index/litestream`). */
  path: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** A new snapshot when the last is older than this (Go duration, `24h`). */
  snapshotInterval: string;
  /**
   * Snapshots older than this, the WAL before the oldest snapshot kept, and generations with no snapshot kept are
   * deleted (Go duration, `2h`); at least `snapshotInterval`, or Litestream takes a snapshot at each check.
   */
  retention: string;
}

/** The Litestream binary for this platform, from its npm package. */
export function litestreamBinary(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve(`@flydotio/litestream-${process.platform}-${process.arch}/package.json`)), 'litestream');
}

/**
 * How often Litestream looks for new WAL frames and ships them (its defaults are 1 s each): it runs only while a
 * publish waits for it, so every interval is waited for once or twice per publish.
 */
const SYNC_INTERVAL = '100ms';

/**
 * How long Litestream's log stays silent, every upload ended, before it is stopped: several of its sync intervals,
 * so an upload about to begin has begun.
 */
const QUIET_MS = 500;

/**
 * How often Litestream enforces its retention while it runs: its check runs on a timer of its own and Litestream runs
 * only for a publish (about a second), so the check must come round within one. Each check lists the replica's
 * snapshots and WAL and deletes what is past retention.
 */
const RETENTION_CHECK_INTERVAL = '250ms';

/** How long Litestream may take to open the file, or to ship what was written, before it is abandoned. */
const LITESTREAM_TIMEOUT_MS = 10 * 60_000;
/** How long Litestream may take to stop once asked, with nothing left to ship, before it is killed (a failure). */
const STOP_TIMEOUT_MS = 30_000;

/**
 * Runs `write` while Litestream replicates the SQLite file at `path` to `replica`, then stops it once it has shipped
 * every page written; `meanwhile` (work that does not write the file, such as reading it for an export) runs while
 * Litestream ships, which takes seconds of waiting for its syncs. Credentials come from AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY in `env`. Throws when Litestream logs an error or exits otherwise than asked, or `meanwhile`
 * throws; answers what `write` answered.
 * @example await replicateWhile('data/public/index.db', replica, process.env, () => updatePublicCopy(...), () => exportPublicCopy(...));
 */
export async function replicateWhile<T>(
  path: string, replica: LitestreamReplica, env: NodeJS.ProcessEnv, write: () => T | Promise<T>, meanwhile?: () => unknown,
): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), 'psi-litestream-'));
  const config = join(work, 'litestream.yml');
  writeFileSync(config, toConfig(path, replica));
  const child = spawn(litestreamBinary(), ['replicate', '-config', config], {
    env: { PATH: env.PATH, HOME: env.HOME, AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN: env.AWS_SESSION_TOKEN },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = watchLog(child, SYNCED, SHIPPING.flat());
  // Each wait on Litestream is bounded, not the caller's write or `meanwhile`, which take minutes at 100,000 services.
  const bounded = async <R>(ms: number, wait: Promise<R>): Promise<R> => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    try {
      return await wait;
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    // The first finished sync means Litestream holds the file (its read transaction) and knows its WAL position.
    await bounded(LITESTREAM_TIMEOUT_MS, log.next(SYNCED, 0));
    const result = await write();
    const written = Date.now();
    // Stopped once the pages written are in the store and nothing is being uploaded: a stop cancels the upload under
    // way, and a store that keeps a cut-off upload (s3rver does) would then hold a broken object. A sync of the
    // file that began after the write copied its WAL frames; the uploads that follow carry them.
    const shipped = () => bounded(LITESTREAM_TIMEOUT_MS, (async () => {
      await log.nextAfter(SYNCED, written);
      await log.quiet(...SHIPPING, QUIET_MS);
    })());
    await Promise.all([shipped(), (async () => meanwhile?.())()]);
    const stopped = log.lines.length;
    child.kill('SIGTERM');
    const code = await bounded(STOP_TIMEOUT_MS, log.exited);
    // A retention check the stop cut short logs its cancelled request; the next publish's checks delete the rest.
    const errors = log.lines.filter((line, index) => line.includes('level=ERROR') && !(index >= stopped && line.includes('context canceled')));
    if (code !== 0 || errors.length > 0) throw new Error(`litestream did not ship every change (exit ${code}; ${log.tally()}): ${errors.join('; ')}`);
    return result;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await log.exited;
    }
    rmSync(work, { recursive: true, force: true });
  }
}

/** Litestream's log as it comes, with a wait for the next line holding some text. */
const SYNCED = 'msg="sync: ok"';
/** The messages that begin and end each upload Litestream makes. */
const SHIPPING: Array<[string, string]> = [['write wal segment', 'wal segment written'], ['write snapshot', 'snapshot written']];
/** Lines of any kind kept for a failure's message. */
const RECENT_LINES = 3;

/**
 * Litestream's log as it comes: the lines holding `kept` and the errors are kept, the messages `counted` are counted,
 * and the last few lines are kept for a failure's message. At debug level it writes some hundreds of megabytes of
 * lines while it ships a whole copy (a new generation at 100,000 services), which kept whole filled the heap.
 */
function watchLog(child: ChildProcess, kept: string, counted: readonly string[]) {
  const lines: string[] = [];
  const recent: string[] = [];
  const counts = new Map(counted.map((text) => [`msg="${text}"`, 0]));
  let woken = () => undefined as void;
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (status) => {
    code = status;
    woken();
    resolve(status);
  }));
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (line.includes('level=ERROR') || line.includes(kept)) lines.push(line);
    for (const [text, count] of counts) if (line.includes(text)) counts.set(text, count + 1);
    if (recent.push(line) > RECENT_LINES) recent.shift();
    woken();
  });
  const wait = () => new Promise<void>((resolve) => (woken = resolve));
  const fail = () => new Error(`litestream exited ${code}: ${lines.filter((line) => line.includes('level=ERROR')).join('; ') || recent.join('; ')}`);
  return {
    lines,
    exited,
    /** Each counted message's count so far, and the last lines: what a stall or failure leaves to read. */
    tally: () => `${[...counts].map(([text, count]) => `${text} ${count}`).join(', ')}; last: ${recent.join(' | ')}`,
    /** The index of the first line from `from` on that holds `text`. */
    async next(text: string, from: number): Promise<number> {
      for (;;) {
        const found = lines.findIndex((line, index) => index >= from && line.includes(text));
        if (found >= 0) return found;
        if (code !== undefined) throw fail();
        await wait();
      }
    },
    /** The first line holding `text` that Litestream stamped after `time` (ms since the epoch). */
    async nextAfter(text: string, time: number): Promise<void> {
      for (let from = 0; ; from += 1) {
        from = await this.next(text, from);
        const stamp = Date.parse(/^time=(\S+)/.exec(lines[from]!)?.[1] ?? '');
        if (stamp > time) return;
      }
    },
    /** Resolves once every upload begun (`msg="<start>"`) has ended (`msg="<end>"`) and none began or ended for `ms`. */
    async quiet(...args: [...Array<[string, string]>, number]): Promise<void> {
      const ms = args.pop() as number;
      const pairs = args as Array<[string, string]>;
      const count = (text: string) => counts.get(`msg="${text}"`) ?? 0;
      for (;;) {
        if (code !== undefined) throw fail();
        const uploads = () => pairs.flat().reduce((sum, text) => sum + count(text), 0);
        const seen = uploads();
        const settled = pairs.every(([start, end]) => count(start) === count(end));
        await new Promise((resolve) => setTimeout(resolve, ms));
        // Timers fire before pending input is read: after a blocking step (an export running meanwhile), the lines
        // Litestream wrote during it are read first, so they are not taken for silence.
        await new Promise((resolve) => setImmediate(resolve));
        if (settled && uploads() === seen) return;
      }
    },
  };
}

/**
 * Deletes what Litestream keeps beside the SQLite file at `path` (its shadow WAL), before the file is created again.
 * @example forgetReplication('data/public/index.db');
 */
export function forgetReplication(path: string): void {
  rmSync(join(dirname(path), `.${basename(path)}-litestream`), { recursive: true, force: true });
}

/**
 * Rebuilds the copy at `output` (which must not exist) from the Litestream replica in the folder `replicaDir` (its
 * `generations/` as in the store): the latest snapshot of the latest generation, and every WAL segment after it.
 * @example await restoreCopy('data/replica/litestream', 'data/replica/index-3.db');
 */
export async function restoreCopy(replicaDir: string, output: string): Promise<void> {
  const child = spawn(litestreamBinary(), ['restore', '-o', output, `file://${replicaDir}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`litestream restore exited ${code}: ${lines.slice(-3).join('; ')}`);
}

/** Litestream's configuration for one database and one S3 replica; debug logs say when it holds the file. */
function toConfig(path: string, replica: LitestreamReplica): string {
  const lines = [
    'logging:', '  level: debug', '  stderr: true', 'dbs:', `  - path: ${JSON.stringify(path)}`, `    monitor-interval: ${SYNC_INTERVAL}`,
    '    replicas:', '      - type: s3', `        sync-interval: ${SYNC_INTERVAL}`,
    `        bucket: ${JSON.stringify(replica.bucket)}`, `        path: ${JSON.stringify(replica.path)}`, `        region: ${JSON.stringify(replica.region)}`,
    `        force-path-style: ${replica.forcePathStyle}`, `        snapshot-interval: ${replica.snapshotInterval}`, `        retention: ${replica.retention}`,
    `        retention-check-interval: ${RETENTION_CHECK_INTERVAL}`,
  ];
  if (replica.endpoint) lines.push(`        endpoint: ${JSON.stringify(replica.endpoint)}`);
  return `${lines.join('\n')}\n`;
}
