import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Server } from 'srvx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readsDuring, startReplica, stopReplica, waitFor } from './testing.ts';
import { createApp, serveApp } from '../api/app.ts';
import { testConfig } from '../api/testing.ts';
import { writeDatabaseCopy } from '../data/backup.ts';
import { openDatabase, type DB } from '../data/db.ts';
import { restoreCopy } from '../data/litestream.ts';
import { COPY_META_TABLE, LITESTREAM_TABLE_PREFIX, PUBLIC_TABLES } from '../data/public-copy.ts';
import { recordProbes } from '../data/probes.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { publishPublicCopy } from '../site/publish/public-copy.ts';
import { readTarget } from '../site/publish/target.ts';
import { startLocalStore, type LocalStore } from '../site/publish/testing.ts';
import { FIXTURE_NOW, openFixtureDatabase, plantPrivateData, type PlantedData } from '../site/testing.ts';

/*
 * A replica following the Litestream replica a publish keeps (REPLICA_OF=s3://...): the real litestream binary
 * against s3rver on loopback, the real server as the replica, the primary's database holding one of every private
 * value.
 */
describe('a read replica following the Litestream replica (REPLICA_OF=s3://)', () => {
  let store: LocalStore;
  let dir: string;
  let db: DB;
  let planted: PlantedData;
  let primary: Server;
  let primaryUrl: string;
  let replica: ChildProcess;
  let replicaUrl: string;
  const logs: string[] = [];
  const TARGET = 's3://site/index';
  /** Lists that read the endpoint rows' keys a replica derives from its copy (liveness, latency, the service's uptime). */
  const ENDPOINT_ORDERS = ['/api/v1/endpoints?limit=100', '/api/v1/endpoints?sort=latency&limit=100', '/api/v1/endpoints?live=true&limit=100', '/api/v1/endpoints?live=false&limit=100'];

  const publish = (generation?: number, extra: NodeJS.ProcessEnv = {}) => publishPublicCopy({
    databasePath: join(dir, 'index.db'), target: readTarget(TARGET), env: { ...process.env, ...store.env, ...extra }, output: join(dir, 'whole.db.gz'), generation,
  });
  const json = async (base: string, path: string) => {
    const answer = await fetch(`${base}${path}`);
    expect(answer.status, path).toBe(200);
    return { ...((await answer.json()) as Record<string, unknown>), generated_at: undefined };
  };
  /** The bytes each refresh fetched, as the replica logged them. */
  const fetchedBytes = () => logs.flatMap((line) => /fetched \d+ Litestream objects \((\d+) bytes\)/.exec(line)?.[1] ?? []).map(Number);

  beforeAll(async () => {
    store = await startLocalStore(['site']);
    dir = mkdtempSync(join(tmpdir(), 'psi-litestream-'));
    writeDatabaseCopy(openFixtureDatabase(), join(dir, 'index.db'));
    db = openDatabase(join(dir, 'index.db'));
    planted = plantPrivateData(db);
    // Enough services that one changed is a small share of the copy, as it is at scale.
    upsertServices(db, Array.from({ length: 300 }, (_, k) => makeService({ id: `bulk-${k}-example-com`, name: `Bulk Service ${k}`, description: `Bulk service number ${k} `.repeat(8) })), FIXTURE_NOW.toISOString());
    await publish();
    primary = serveApp(createApp({ db, config: testConfig(), now: () => new Date() }), { hostname: '127.0.0.1', port: 0 });
    await primary.ready();
    primaryUrl = new URL(primary.url!).origin;
    ({ child: replica, url: replicaUrl } = await startReplica({
      ...store.env, REPLICA_OF: TARGET, PRIMARY_URL: primaryUrl, REPLICA_INTERVAL: '200ms', TRUST_PROXY: '1', PORT: '0',
      DATABASE_PATH: join(dir, 'replica', 'index.db'), DIST_DIR: join(dir, 'replica-dist'),
    }, logs));
  }, 120_000);
  afterAll(async () => {
    await stopReplica(replica);
    await primary?.close(true);
    db?.close();
    await store?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('restores the copy from the store and answers reads as the primary does', async () => {
    for (const path of ['/api/v1/services?limit=50', '/api/v1/services/alpha-example-com', '/api/v1/stats', '/api/v1/services?q=weather', '/api/v1/endpoints?q=forecast', ...ENDPOINT_ORDERS]) {
      expect(await json(replicaUrl, path), path).toEqual(await json(primaryUrl, path));
    }
    expect((await fetch(`${replicaUrl}/services/alpha-example-com`)).status).toBe(200);
    expect(fetchedBytes()).toHaveLength(1);
  });

  it('after one service changes, fetches a small share of the copy and serves every read during the swap', async () => {
    const paths = ['/api/v1/services/alpha-example-com', '/api/v1/services?limit=20', '/api/v1/stats', '/services/alpha-example-com', '/'];
    let kept = '';
    const { failures, answered } = await readsDuring(replicaUrl, paths, 6, async () => {
      upsertServices(db, [makeService({ id: 'swapped-example-com', name: 'Swapped In' })], FIXTURE_NOW.toISOString());
      kept = await publish();
      await waitFor('swapped in the new copy', async () => (await fetch(`${replicaUrl}/api/v1/services/swapped-example-com`)).status === 200, logs);
    });
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(30);
    expect(await json(replicaUrl, '/api/v1/stats')).toEqual(await json(primaryUrl, '/api/v1/stats'));
    const refreshes = fetchedBytes();
    expect(refreshes).toHaveLength(2);
    const size = readFileSync(kept).length;
    expect(refreshes[1]!).toBeGreaterThan(0);
    expect(refreshes[1]! / size).toBeLessThan(0.1);
    expect(readdirSync(join(dir, 'replica', 'replica')).filter((name) => name.endsWith('.db'))).toHaveLength(1);
  }, 60_000);

  it('never swaps in an older copy: a publish stamped before the one served is refused, the next newer one is taken', async () => {
    upsertServices(db, [makeService({ id: 'older-example-com', name: 'Stamped Older' })], FIXTURE_NOW.toISOString());
    await publish(1);
    await waitFor('refused the older copy', () => logs.some((line) => /refused a new copy: generation 1 is not newer/.test(line)), logs);
    expect((await fetch(`${replicaUrl}/api/v1/services/older-example-com`)).status).toBe(404);
    expect((await fetch(`${replicaUrl}/api/v1/services/swapped-example-com`)).status).toBe(200);
    // A publish stamps a new copy only when a public row differs.
    upsertServices(db, [makeService({ id: 'newer-example-com', name: 'Stamped Newer' })], FIXTURE_NOW.toISOString());
    await publish();
    await waitFor('swapped in the newer copy', async () => (await fetch(`${replicaUrl}/api/v1/services/older-example-com`)).status === 200, logs);
  }, 60_000);

  it('after a pass that gives every service a new check, fetches a small share and answers the endpoint lists as the primary does', async () => {
    const ids = db.prepare('SELECT id, live FROM services ORDER BY id').all() as Array<{ id: string; live: number | null }>;
    // Every service checked again, a few of them changing state, as a probe pass at scale does.
    const at = new Date(FIXTURE_NOW.getTime() + 300_000).toISOString();
    recordProbes(db, ids.map(({ id, live }, k) => {
      const ok = k % 50 === 0 ? live !== 1 : live === 1;
      return { service_id: id, probed_at: at, ok, status_code: ok ? 402 : 404, method: 'GET', latency_ms: 40 + ((k * 37) % 400), reason: ok ? null : 'no payment challenge (HTTP 404)', detected_rails: ok ? ['x402'] : [] };
    }));
    const refreshes = fetchedBytes().length;
    const kept = await publish();
    await waitFor('swapped in the copy of the pass', async () => fetchedBytes().length > refreshes
      && (await json(replicaUrl, '/api/v1/stats') as { last_probe_at?: string }).last_probe_at === at, logs);
    // Under the 10 % target with room: the endpoint rows, whose copied service keys every pass moves, are not shipped.
    expect(fetchedBytes().at(-1)! / readFileSync(kept).length).toBeLessThan(0.08);
    for (const path of ENDPOINT_ORDERS) expect(await json(replicaUrl, path), path).toEqual(await json(primaryUrl, path));
  }, 60_000);

  it('the Litestream replica and the copies restored from it hold public data only', async () => {
    const restored = join(dir, 'restored.db');
    await restoreCopy(await mirrorOf(store, dir), restored);
    const copies = [restored, ...readdirSync(join(dir, 'replica', 'replica')).filter((name) => name.endsWith('.db')).map((name) => join(dir, 'replica', 'replica', name))];
    const allowed: Record<string, readonly string[]> = { ...PUBLIC_TABLES, [COPY_META_TABLE]: ['id', 'generation'] };
    for (const path of copies) {
      const copy = new Database(path, { readonly: true });
      const tables = copy.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '%\\_fts\\_%' ESCAPE '\\'`).pluck().all() as string[];
      for (const table of tables.filter((name) => !name.startsWith(LITESTREAM_TABLE_PREFIX))) {
        expect(allowed[table], `${path}: table ${table} is not on the allow-list`).toBeDefined();
        const columns = copy.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
        expect(columns.filter((column) => !allowed[table]!.includes(column)), `${path}: columns of ${table} not on the allow-list`).toEqual([]);
      }
      expect(copy.prepare('SELECT count(*) FROM services').pluck().get()).toBe(db.prepare('SELECT count(*) FROM services').pluck().get());
      copy.close();
      // Every byte, free pages included.
      const bytes = readFileSync(path);
      expect(planted.values.filter((value) => bytes.includes(value)), path).toEqual([]);
    }
    expect(db.prepare('SELECT count(*) FROM webhooks').pluck().get()).toBeGreaterThan(0);
  }, 60_000);

  it('refuses a Litestream replica over REPLICA_MAX_BYTES before fetching any of it', async () => {
    const { refreshMirror } = await import('../api/replica/mirror.ts');
    const { createS3Client } = await import('../site/publish/target.ts');
    const capped = join(dir, 'capped');
    await expect(refreshMirror(createS3Client(store.env), 'site', 'index/litestream', capped, 1024)).rejects.toThrow(/over REPLICA_MAX_BYTES \(1024 bytes\)/);
    expect(() => readdirSync(capped)).toThrow(/ENOENT/);
  });

  it('each publish deletes what is past Litestream retention: older generations, older snapshots, the WAL before the oldest kept', async () => {
    // A snapshot at each publish, and nothing but it kept: a publish lasts less than the interval, so it ends quiet.
    const retention = { LITESTREAM_SNAPSHOT_INTERVAL: '5s', LITESTREAM_RETENTION: '5s' };
    const listReplica = async () => {
      const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
      const { createS3Client } = await import('../site/publish/target.ts');
      const listed = await createS3Client(store.env).send(new ListObjectsV2Command({ Bucket: 'site', Prefix: 'index/litestream/' }));
      return (listed.Contents ?? []).map((object) => /generations\/(\w+)\/(snapshots|wal)\/(\w{8})/.exec(object.Key!)!).map(([, generation, kind, index]) => ({ generation, kind, index: parseInt(index!, 16) }));
    };
    const before = new Set((await listReplica()).map(({ generation }) => generation));
    // A copy made again (as after a migration) starts a new generation.
    rmSync(join(dir, 'public'), { recursive: true, force: true });
    for (const name of ['Retained One', 'Retained Two']) {
      await new Promise((resolve) => setTimeout(resolve, 5_100));
      upsertServices(db, [makeService({ id: `${name.toLowerCase().replace(' ', '-')}-example-com`, name })], FIXTURE_NOW.toISOString());
      await publish(undefined, retention);
    }
    const objects = await listReplica();
    const generations = new Set(objects.map(({ generation }) => generation));
    expect(generations.size).toBe(1);
    expect(before.has([...generations][0]!)).toBe(false);
    const oldest = Math.min(...objects.filter(({ kind }) => kind === 'snapshots').map(({ index }) => index));
    expect(objects.filter(({ kind, index }) => kind === 'wal' && index < oldest)).toEqual([]);
    expect(objects.filter(({ kind }) => kind === 'snapshots').length).toBeLessThanOrEqual(2);
    // What is left restores the newest copy.
    const restored = join(dir, 'pruned.db');
    await restoreCopy(await mirrorOf(store, dir), restored);
    const copy = new Database(restored, { readonly: true });
    expect(copy.prepare(`SELECT count(*) FROM services WHERE id = 'retained-two-example-com'`).pluck().get()).toBe(1);
    copy.close();
  }, 60_000);
});

/** A folder holding every object of the store's Litestream replica, as s3rver keeps them, for a restore of its own. */
async function mirrorOf(store: LocalStore, dir: string): Promise<string> {
  const { refreshMirror } = await import('../api/replica/mirror.ts');
  const { createS3Client } = await import('../site/publish/target.ts');
  const mirror = join(dir, 'test-mirror');
  await refreshMirror(createS3Client(store.env), 'site', 'index/litestream', mirror, 1024 ** 3);
  return mirror;
}
