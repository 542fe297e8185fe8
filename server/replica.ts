import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type DB } from '../data/db.ts';
import { litestreamPath, restoreCopy } from '../data/litestream.ts';
import { SERVER_PROCESS } from '../processes.ts';
import { completePublicCopy, readCopyGeneration, RefusedCopyError } from '../data/public-copy.ts';
import { readSiteOptions } from '../site/build/config.ts';
import { createSite } from '../site/build/site.ts';
import { createS3Client, readTarget } from '../site/publish/target.ts';
import { createApp, serveApp, type App } from '../api/app.ts';
import { readConfig } from '../api/config.ts';
import { createRateLimiter } from '../api/ratelimit.ts';
import { readReplicaConfig, type ReplicaConfig } from '../api/replica/config.ts';
import { downloadCopy, RefusedDownloadError, type CopyVersion } from '../api/replica/download.ts';
import { refreshMirror } from '../api/replica/mirror.ts';
import { createSwitchingApp } from '../api/replica/switch.ts';
import { redirectToPrimary } from '../api/replica/writes.ts';

/**
 * `REPLICA_OF=<published index.db.gz> PRIMARY_URL=<writer> npm start`: a read replica. It downloads the published
 * public copy (or, with `REPLICA_OF=s3://BUCKET/PREFIX`, follows the Litestream replica a publish there keeps,
 * fetching only the objects it lacks), serves every read and page from it (its own site rendered from the copy),
 * looks for a newer copy every REPLICA_INTERVAL and swaps it in without dropping a request, and answers every write, and every route of
 * data the copy leaves out, with 307 to the writer. It never crawls. The rate limit is this process's own, kept
 * across swaps. A copy is swapped in only when it opens, has this code's schema and a larger generation than the
 * one served; any other is refused with its reason logged, deleted, and not downloaded again.
 */

interface Loaded {
  app: App;
  close: () => void;
  version: CopyVersion;
  generation: number;
}

/**
 * Starts the replica; answers once it serves, with a function that stops it.
 * @example const stop = await serveReplica(process.env);
 */
export async function serveReplica(env: NodeJS.ProcessEnv, log: (line: string) => void = console.log): Promise<{ url: string; stop: () => Promise<void> }> {
  const config = readConfig(env);
  const replica = readReplicaConfig(env)!;
  mkdirSync(replica.dir, { recursive: true });
  // Copies of an earlier run go; the Litestream mirror stays, so a restart fetches only what changed since.
  for (const entry of readdirSync(replica.dir)) if (entry !== MIRROR_FOLDER) rmSync(join(replica.dir, entry), { recursive: true, force: true });
  const limiter = createRateLimiter(config.rateLimit);
  // The copy is named by where it comes from, so a new copy refreshes the pages that changed instead of a full build.
  const siteOptions = { ...readSiteOptions(env, config, (line) => log(`[site] ${line}`)), databasePath: replica.source };
  let sequence = 0;
  const fetchCopy = replica.source.startsWith('s3://') ? followLitestream(env, replica, log) : downloadWhole(replica);

  /**
   * Fetches and checks a copy newer than `served` and derives the columns a copy leaves out: its path and generation,
   * or null when the store has no other.
   */
  const download = async (seen: CopyVersion | null, served: number) => {
    const path = join(replica.dir, `index-${++sequence}.db`);
    const version = await fetchCopy(seen, path);
    if (!version) return null;
    try {
      const generation = readCopyGeneration(path);
      if (generation <= served) throw new RefusedCopyError(`generation ${generation} is not newer than the one served (${served})`);
      completePublicCopy(path);
      return { path, version, generation };
    } catch (error) {
      removeCopy(path);
      throw error instanceof RefusedCopyError ? new RefusedDownloadError(error.message, version) : error;
    }
  };

  const load = async (seen: CopyVersion | null, served: number): Promise<Loaded | null> => {
    const found = await download(seen, served);
    if (!found) return null;
    const { path, version, generation } = found;
    let db: DB;
    try {
      db = openDatabase(path, { cacheKiB: SERVER_PROCESS.databaseCacheKiB });
    } catch (error) {
      removeCopy(path);
      throw error;
    }
    const site = createSite(db, siteOptions);
    await site.ensureBuilt().catch((error) => log(`[site] not rendered from the new copy: ${toMessage(error)}`));
    const app = createApp({ db, config, now: () => new Date(), limiter, site: { distDir: site.distDir, renderHome: (params) => site.renderHome(params) } });
    const close = () => {
      db.close();
      removeCopy(path);
    };
    return { app, close, version, generation };
  };

  const first = await load(null, -Infinity).catch((error) => {
    throw error instanceof RefusedDownloadError ? new Error(`${replica.source} gave a copy this replica refuses: ${error.message}`) : error;
  });
  if (!first) throw new Error(`${replica.source} gave no database`);
  let seen = first.version;
  let served = first.generation;
  const switching = createSwitchingApp(first.app, first.close, (request, response) => redirectToPrimary(request, response, replica.primaryUrl));
  const server = serveApp(switching.app, { hostname: config.host, port: config.port });
  await server.ready();
  log(`[replica] serving a copy of ${replica.source}; writes go to ${replica.primaryUrl}`);

  let checking: Promise<void> | null = null;
  const check = async () => {
    try {
      const next = await load(seen, served);
      if (!next) return;
      ({ version: seen, generation: served } = next);
      switching.replace(next.app, next.close);
      log(`[replica] swapped in a new copy (generation ${served})`);
    } catch (error) {
      if (error instanceof RefusedDownloadError) seen = error.version;
      log(`[replica] ${error instanceof RefusedDownloadError ? 'refused a new copy' : 'found no new copy'}: ${toMessage(error)}; keeping the current copy (generation ${served})`);
    }
  };
  const timer = setInterval(() => {
    checking ??= check().finally(() => (checking = null));
  }, replica.intervalMs);

  return {
    url: server.url!,
    stop: async () => {
      clearInterval(timer);
      await checking;
      await server.close(true);
    },
  };
}

/** Writes a copy newer than the one `seen` to `path`, answering its version, or null when the store has no other. */
type FetchCopy = (seen: CopyVersion | null, path: string) => Promise<CopyVersion | null>;

/** The published `snapshots/index.db.gz` (or a plain `.db`), downloaded whole when it changed. */
const downloadWhole = (replica: ReplicaConfig): FetchCopy => (seen, path) => downloadCopy(replica.source, seen, path, replica.maxBytes);

/** Where the mirror of the Litestream replica is kept, in the replica's folder. */
const MIRROR_FOLDER = 'litestream';
/** What a copy restored from the Litestream replica is known by: the objects it came from are in the mirror. */
const LITESTREAM_VERSION: CopyVersion = { etag: 'litestream', lastModified: null };

/**
 * The Litestream replica a publish keeps under `REPLICA_OF` (s3://BUCKET/PREFIX): the mirror fetches the objects it
 * lacks, and when there were any (or nothing is served yet) Litestream restores a copy from the mirror.
 */
function followLitestream(env: NodeJS.ProcessEnv, replica: ReplicaConfig, log: (line: string) => void): FetchCopy {
  const target = readTarget(replica.source);
  const client = createS3Client(env);
  const dir = join(replica.dir, MIRROR_FOLDER);
  // Whether the mirror holds objects no restore has read yet: a failed restore is tried again at the next refresh.
  let unread = true;
  return async (seen, path) => {
    const started = performance.now();
    const refresh = await refreshMirror(client, target.bucket, litestreamPath(target.prefix), dir, replica.maxBytes).catch((error) => {
      throw error instanceof RefusedCopyError ? new RefusedDownloadError(error.message, LITESTREAM_VERSION) : error;
    });
    unread ||= refresh.fetched > 0;
    if (!unread && seen) return null;
    await restoreCopy(dir, path).catch((error) => {
      rmSync(`${path}.tmp`, { force: true });
      throw error;
    });
    unread = false;
    if (statSync(path).size > replica.maxBytes) {
      removeCopy(path);
      throw new RefusedDownloadError(`over REPLICA_MAX_BYTES (${replica.maxBytes} bytes) restored`, LITESTREAM_VERSION);
    }
    const seconds = (performance.now() - started) / 1000;
    log(`[replica] fetched ${refresh.fetched} Litestream objects (${refresh.bytes} bytes) and restored a copy of ${statSync(path).size} bytes in ${seconds.toFixed(2)} s`);
    return LITESTREAM_VERSION;
  };
}

const removeCopy = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
};

const toMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
