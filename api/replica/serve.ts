import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../data/db.ts';
import { readSiteOptions } from '../../site/build/config.ts';
import { createSite } from '../../site/build/site.ts';
import { createApp, serveApp, type App } from '../app.ts';
import { readConfig } from '../config.ts';
import { createRateLimiter } from '../ratelimit.ts';
import { readReplicaConfig } from './config.ts';
import { downloadCopy, type CopyVersion } from './download.ts';
import { createSwitchingApp } from './switch.ts';
import { redirectWrite } from './writes.ts';

/**
 * `REPLICA_OF=<published index.db> PRIMARY_URL=<writer> npm start`: a read replica. It downloads the published
 * database copy, serves every read and page from it (its own site rendered from the copy), looks for a newer copy
 * every REPLICA_INTERVAL and swaps it in without dropping a request, and answers every write with 307 to the
 * writer. It never crawls. The rate limit is this process's own, kept across swaps.
 */

interface Loaded {
  app: App;
  close: () => void;
  version: CopyVersion;
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

  const load = async (held: CopyVersion | null): Promise<Loaded | null> => {
    const path = join(replica.dir, `index-${++sequence}.db`);
    const version = await downloadCopy(replica.source, held, path);
    if (!version) return null;
    const db = openDatabase(path);
    const site = createSite(db, siteOptions);
    await site.ensureBuilt().catch((error) => log(`[site] not rendered from the new copy: ${toMessage(error)}`));
    const app = createApp({ db, config, now: () => new Date(), limiter, site: { distDir: site.distDir, renderHome: (params) => site.renderHome(params) } });
    const close = () => {
      db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    };
    return { app, close, version };
  };

  const first = await load(null);
  if (!first) throw new Error(`${replica.source} gave no database`);
  let held = first.version;
  const switching = createSwitchingApp(first.app, first.close, (request, response) => redirectWrite(request, response, replica.primaryUrl));
  const server = serveApp(switching.app, { hostname: config.host, port: config.port });
  await server.ready();
  log(`[replica] serving a copy of ${replica.source}; writes go to ${replica.primaryUrl}`);

  let checking: Promise<void> | null = null;
  const check = async () => {
    try {
      const next = await load(held);
      if (!next) return;
      held = next.version;
      switching.replace(next.app, next.close);
      log(`[replica] swapped in a new copy (${held.etag ?? held.lastModified ?? 'no version'})`);
    } catch (error) {
      log(`[replica] keeping the current copy: ${toMessage(error)}`);
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

const toMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
