/**
 * The `publish` benchmark group: the site of 10,000 synthetic services (scripts/bench/synthetic.ts) published to a
 * local S3-compatible store (s3rver on loopback, site/publish/testing.ts) with `npm run publish`: the full publish,
 * then the publish after 1 % of the services changed (the build group's change, rendered incrementally); then a
 * read replica of the published copy against the primary, detail lookups a second, in alternating turns.
 * Targets: publish after a 1 % change <= 10 s; replica detail lookups >= 0.9x the primary's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { openDatabase } from '../../data/db.ts';
import { listServiceIds } from '../../data/pages.ts';
import { PUBLISH_PROCESS } from '../../processes.ts';
import { PROJECT_ROOT } from '../../project.ts';
import { buildSite } from '../../site/build/build.ts';
import { refreshSite } from '../../site/build/refresh.ts';
import { startLocalStore } from '../../site/publish/testing.ts';
import { changeOnePercent } from './build.ts';
import { compiledChild } from './compiled.ts';
import { prepareDatabase } from './database.ts';
import { LOAD, runLoad, type LoadTarget } from './load.ts';
import { round, type BenchGroup, type Figure } from './report.ts';

const SERVICES = 10_000;
const SITE_URL = 'https://index.example';
/** Where the bench publishes (the cycle group's replica follows its Litestream replica). */
export const TARGET = 's3://bench/site';
/** Turns of primary then replica, each LOAD.seconds / TURNS long, so drift on a shared machine hits both. */
const TURNS = 4;

export const publishGroup: BenchGroup = { name: 'publish', run };

async function run(emit: (figure: Figure) => void): Promise<void> {
  const data = prepareDatabase(SERVICES);
  const dir = mkdtempSync(join(tmpdir(), 'psi-bench-publish-'));
  const store = await startLocalStore(['bench']);
  const servers: ChildProcess[] = [];
  try {
    const database = join(dir, 'services.db');
    copyFileSync(data.path, database);
    const distDir = join(dir, 'dist');
    const options = { distDir, siteUrl: SITE_URL, stagingUrl: SITE_URL, databasePath: resolve(database), now: () => new Date() };
    const db = openDatabase(database);
    const built = await buildSite(db, options);
    await built.pruned;
    emit({ label: 'site', value: `${data.services} services, ${built.files} files, built in ${round(built.seconds)} s` });

    const env = { ...process.env, ...store.env, DATABASE_PATH: database, DIST_DIR: distDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    const full = await publish(env);
    emit({ label: 'full publish', value: `${round(full.seconds)} s  (${full.summary})` });
    const again = await publish(env);
    emit({ label: 'publish, nothing changed', value: `${round(again.seconds)} s  (${again.summary})` });

    db.close();
    changeOnePercent(database);
    const changedDb = openDatabase(database);
    await refreshSite(changedDb, options);
    changedDb.close();
    const changed = await publish(env);
    emit({ label: 'publish after 1 % change', value: `${round(changed.seconds)} s  (${changed.summary})`, target: { actual: changed.seconds, op: '<=', limit: 10, unit: ' s' } });

    const serverEnv = { ...process.env, BASE_URL: SITE_URL, TRUST_PROXY: '1', PORT: '0', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    const primary = await startServer({ ...serverEnv, DATABASE_PATH: database, DIST_DIR: distDir }, servers);
    const replicaStarted = performance.now();
    const replica = await startServer({
      ...serverEnv,
      REPLICA_OF: `${store.endpoint}/bench/site/snapshots/index.db.gz`,
      PRIMARY_URL: primary,
      DATABASE_PATH: join(dir, 'replica', 'index.db'),
      DIST_DIR: join(dir, 'replica-dist'),
    }, servers);
    emit({ label: 'replica ready', value: `${round((performance.now() - replicaStarted) / 1000)} s  (download, open, render its site)` });

    const ids = listServiceIds(openDatabase(database));
    const detail = (): LoadTarget => {
      let k = 0;
      return { next: () => ({ path: `/api/v1/services/${ids[(k * 7919) % ids.length]}`, headers: { 'x-forwarded-for': toAddress(k++) } }) };
    };
    let primaryRequests = 0;
    let replicaRequests = 0;
    const turn = LOAD.seconds / TURNS;
    await runLoad(primary, detail(), LOAD.warmupSeconds);
    await runLoad(replica, detail(), LOAD.warmupSeconds);
    for (let k = 0; k < TURNS; k++) {
      primaryRequests += (await runLoad(primary, detail(), turn)).rps * turn;
      replicaRequests += (await runLoad(replica, detail(), turn)).rps * turn;
    }
    const primaryRps = primaryRequests / LOAD.seconds;
    const replicaRps = replicaRequests / LOAD.seconds;
    emit({ label: 'primary detail rps', value: `${round(primaryRps)}` });
    const ratio = replicaRps / primaryRps;
    emit({ label: 'replica detail rps', value: `${round(replicaRps)}  (${ratio.toFixed(2)}x primary)`, target: { actual: ratio, op: '>=', limit: 0.9, unit: 'x' } });
  } finally {
    for (const server of servers) server.kill('SIGTERM');
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A distinct client address per request (the server trusts X-Forwarded-For here), so the load never meets the rate limit. */
const toAddress = (k: number) => `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;

/** `npm run publish` (compiled, as it runs) to the bench bucket in a child process: how long it took and its summary line. */
export async function publish(env: NodeJS.ProcessEnv): Promise<{ seconds: number; summary: string }> {
  const script = await compiledChild('scripts/publish.ts');
  const started = performance.now();
  const output = await new Promise<string>((resolvePublish, reject) => {
    const child = spawn(process.execPath, [...PUBLISH_PROCESS.nodeArgs, script, '--to', TARGET], {
      env: { ...PUBLISH_PROCESS.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk));
    child.on('exit', (code) => (code === 0 ? resolvePublish(out) : reject(new Error(`publish exited ${code}: ${errors.trim().slice(-1000)}`))));
  });
  const summary = /: (\d+ uploaded .*), in /.exec(output)?.[1] ?? output.trim();
  return { seconds: (performance.now() - started) / 1000, summary };
}

/** `npm start`'s server (tsx, no crawls) with this environment; answers its origin once it listens. */
function startServer(env: NodeJS.ProcessEnv, servers: ChildProcess[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'server', 'main.ts'), '--no-crawl'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  servers.push(child);
  return new Promise((resolveUrl, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited ${code} before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolveUrl(new URL(match[1]!).origin);
    });
  });
}
