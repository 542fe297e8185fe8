import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type DB } from '../data/db.ts';
import { SERVER_PROCESS } from '../processes.ts';
import { readCopyGeneration, RefusedCopyError } from '../data/public-copy.ts';
import { readSiteOptions } from '../site/build/config.ts';
import { createSite } from '../site/build/site.ts';
import { createApp, serveApp, type App } from '../api/app.ts';
import { readConfig } from '../api/config.ts';
import { createRateLimiter } from '../api/ratelimit.ts';
import { readReplicaConfig } from '../api/replica/config.ts';
import { downloadCopy, RefusedDownloadError, type CopyVersion } from '../api/replica/download.ts';
import { createSwitchingApp } from '../api/replica/switch.ts';
import { redirectToPrimary } from '../api/replica/writes.ts';

/**
 * `REPLICA_OF=<published index.db.gz> PRIMARY_URL=<writer> npm start`: a read replica. It downloads the published
 * public copy, serves every read and page from it (its own site rendered from the copy), looks for a newer copy
 * every REPLICA_INTERVAL and swaps it in without dropping a request, and answers every write, and every route of
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
  for (const entry of readdirSync(replica.dir)) rmSync(join(replica.dir, entry), { force: true });
  const limiter = createRateLimiter(config.rateLimit);
  // The copy is named by where it comes from, so a new copy refreshes the pages that changed instead of a full build.
  const siteOptions = { ...readSiteOptions(env, config, (line) => log(`[site] ${line}`)), databasePath: replica.source };
  let sequence = 0;

  /** Downloads and checks a copy newer than `served`: its path and generation, or null when the store has no other. */
  const download = async (seen: CopyVersion | null, served: number) => {
    const path = join(replica.dir, `index-${++sequence}.db`);
    const version = await downloadCopy(replica.source, seen, path, replica.maxBytes);
    if (!version) return null;
    try {
      const generation = readCopyGeneration(path);
      if (generation <= served) throw new RefusedCopyError(`generation ${generation} is not newer than the one served (${served})`);
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

const removeCopy = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
};

const toMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
