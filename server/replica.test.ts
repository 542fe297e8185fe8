import { noteFacilitators, recordFacilitatorCheck } from '../data/facilitators.ts';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import type { Server } from 'srvx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readsDuring, startReplica, stopReplica, waitFor } from './testing.ts';
import { writeDatabaseCopy } from '../data/backup.ts';
import { createClaim, verifyClaim } from '../data/claims.ts';
import { openDatabase, type DB } from '../data/db.ts';
import { writePublicCopy } from '../data/public-copy.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { publishSite } from '../site/publish/publish.ts';
import { createStore } from '../site/publish/store.ts';
import { createS3Client, readTarget } from '../site/publish/target.ts';
import { startLocalStore, type LocalStore } from '../site/publish/testing.ts';
import { buildFixtureSite, FIXTURE_NOW, openFixtureDatabase, type FixtureSite } from '../site/testing.ts';
import { createApp, serveApp } from '../api/app.ts';
import { testConfig } from '../api/testing.ts';

describe('a read replica of a published copy (REPLICA_OF)', () => {
  let store: LocalStore;
  let dir: string;
  let db: DB;
  let site: FixtureSite;
  let primary: Server;
  let primaryUrl: string;
  let replica: ChildProcess;
  let replicaUrl: string;
  const logs: string[] = [];
  const MAX_BYTES = 4 * 1024 * 1024;

  /** Publishes the public copy as npm run publish does: a gzip file, stamped with its generation. */
  const publishCopy = async (generation = Date.now()) => {
    const copy = join(dir, 'copy.db');
    writePublicCopy(db, copy, generation);
    writeFileSync(`${copy}.gz`, gzipSync(readFileSync(copy)));
    const target = createStore(createS3Client(store.env), readTarget('s3://site/index'));
    await publishSite({ store: target, root: site.distDir, extra: { 'snapshots/index.db.gz': `${copy}.gz` } });
  };
  /** Puts these bytes where the replica looks for its copy. */
  const putCopy = (body: Buffer) => createStore(createS3Client(store.env), readTarget('s3://site/index'))
    .put('snapshots/index.db.gz', body, { contentType: 'application/gzip', cacheControl: 'no-store' });
  const waitForLog = (pattern: RegExp) => waitFor(`logged ${pattern}`, () => logs.some((line) => pattern.test(line)), logs);
  const copiesOnDisk = () => readdirSync(join(dir, 'replica', 'replica'));
  const json = async (base: string, path: string) => {
    const answer = await fetch(`${base}${path}`);
    expect(answer.status, path).toBe(200);
    const body = (await answer.json()) as Record<string, unknown>;
    return { ...body, generated_at: undefined };
  };

  beforeAll(async () => {
    store = await startLocalStore(['site']);
    dir = mkdtempSync(join(tmpdir(), 'psi-replica-'));
    writeDatabaseCopy(openFixtureDatabase(), join(dir, 'index.db'));
    db = openDatabase(join(dir, 'index.db'));
    const claim = createClaim(db, { service_id: 'dual-example-com', secret_digest: 'b'.repeat(64), client: '198.51.100.41', now: FIXTURE_NOW });
    verifyClaim(db, claim, 'a'.repeat(64), FIXTURE_NOW.toISOString());
    noteFacilitators(db, [{ url: 'https://facilitator.example.org', seenIn: 'challenge' }], FIXTURE_NOW.toISOString());
    recordFacilitatorCheck(db, 'https://facilitator.example.org', FIXTURE_NOW.toISOString(), { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }], extensions: ['bazaar'] });
    site = await buildFixtureSite(db);
    await publishCopy();
    primary = serveApp(createApp({ db, config: testConfig(), now: () => new Date() }), { hostname: '127.0.0.1', port: 0 });
    await primary.ready();
    primaryUrl = new URL(primary.url!).origin;
    ({ child: replica, url: replicaUrl } = await startReplica({
      REPLICA_OF: `${store.endpoint}/site/index/snapshots/index.db.gz`,
      PRIMARY_URL: primaryUrl,
      REPLICA_INTERVAL: '200ms',
      REPLICA_MAX_BYTES: String(MAX_BYTES),
      // Each load request names its own client, so the load never meets the rate limit.
      TRUST_PROXY: '1',
      PORT: '0',
      DATABASE_PATH: join(dir, 'replica', 'index.db'),
      DIST_DIR: join(dir, 'replica-dist'),
    }, logs));
  }, 180_000);
  afterAll(async () => {
    await stopReplica(replica);
    await primary?.close(true);
    db?.close();
    site?.remove();
    await store?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("answers every read as the primary does, and serves the pages from its copy", async () => {
    for (const path of ['/api/v1/services?limit=50', '/api/v1/services/alpha-example-com', '/api/v1/stats', '/api/v1/services?sort=price&rail=x402',
      '/api/v1/services/batch?ids=alpha-example-com,down-example-com', '/api/v1/services/many-example-com', '/api/v1/services/dual-example-com',
      '/api/v1/changes', '/api/v1/services/alpha-example-com/changes', '/api/v1/status', '/api/v1/facilitators']) {
      expect(await json(replicaUrl, path), path).toEqual(await json(primaryUrl, path));
    }
    const page = await fetch(`${replicaUrl}/services/alpha-example-com`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('Alpha Weather');
    expect((await fetch(`${replicaUrl}/api/v1/services/nothing-here`)).status).toBe(404);
    expect(((await json(replicaUrl, '/api/v1/services/dual-example-com')) as { owner_verified?: boolean }).owner_verified).toBe(true);
    for (const path of ['/status', '/changes', '/services/dual-example-com']) expect((await fetch(`${replicaUrl}${path}`)).status, path).toBe(200);
    const feed = (await (await fetch(`${replicaUrl}/feed.json`)).json()) as { items: unknown[] };
    expect(feed.items.length).toBeGreaterThan(0);
    const badge = await fetch(`${replicaUrl}/badge/alpha-example-com.svg`);
    expect(badge.status).toBe(200);
    expect(await badge.text()).toBe(await (await fetch(`${primaryUrl}/badge/alpha-example-com.svg`)).text());
  });

  it('sends reads of webhooks, claims, purchases and submissions to the primary with 307: its copy holds none', async () => {
    for (const [method, path] of [['GET', '/api/v1/webhooks/wh_1'], ['GET', '/api/v1/webhooks/wh_1/deliveries?limit=5'], ['GET', '/api/v1/purchases/pur_1'],
      ['GET', '/purchase/pur_1'], ['GET', '/api/v1/submissions/sub_1'], ['GET', '/submissions/sub_1'], ['HEAD', '/api/v1/purchases/pur_1'],
      ['POST', '/api/v1/claims'], ['POST', '/api/v1/claims/clm_1/verify']]) {
      const answer = await fetch(`${replicaUrl}${path}`, { method, redirect: 'manual' });
      expect(answer.status, `${method} ${path}`).toBe(307);
      expect(answer.headers.get('location')).toBe(`${primaryUrl}${path}`);
    }
    const followed = await fetch(`${replicaUrl}/api/v1/webhooks/wh_nothing`);
    expect(followed.url).toBe(`${primaryUrl}/api/v1/webhooks/wh_nothing`);
    expect(followed.status).toBe(401);
  });

  it('answers every write with 307 to the primary, which a client following it reaches', async () => {
    for (const [method, path] of [['POST', '/api/v1/submit?x=1'], ['POST', '/api/v1/purchases'], ['DELETE', '/api/v1/webhooks/wh_1'], ['POST', '/mcp'], ['PUT', '/api/v1/services']]) {
      const answer = await fetch(`${replicaUrl}${path}`, { method, redirect: 'manual', body: method === 'DELETE' ? undefined : '{}', headers: { 'content-type': 'application/json' } });
      expect(answer.status, `${method} ${path}`).toBe(307);
      expect(answer.headers.get('location')).toBe(`${primaryUrl}${path}`);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    }
    const preflight = await fetch(`${replicaUrl}/api/v1/submit`, { method: 'OPTIONS', headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBeLessThan(300);
    const followed = await fetch(`${replicaUrl}/api/v1/submit`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: 'https://api.replica-test.example/v1/pay' }),
    });
    expect(followed.url).toBe(`${primaryUrl}/api/v1/submit`);
    expect(followed.status).toBe(200);
    expect(((await followed.json()) as { ok: boolean }).ok).toBe(true);
    expect(db.prepare(`SELECT count(*) FROM submissions WHERE endpoint LIKE '%replica-test%'`).pluck().get()).toBe(1);
  });

  it('swaps in a newly published copy under load without a failed request', async () => {
    const paths = ['/api/v1/services/alpha-example-com', '/api/v1/services?limit=20', '/api/v1/stats', '/services/alpha-example-com', '/', '/api/v1/services/dual-example-com'];
    const { failures, answered } = await readsDuring(replicaUrl, paths, 8, async () => {
      upsertServices(db, [makeService({ id: 'swapped-example-com', name: 'Swapped In' })], FIXTURE_NOW.toISOString());
      await publishCopy();
      await waitFor('swapped in the new copy', async () => (await fetch(`${replicaUrl}/api/v1/services/swapped-example-com`)).status === 200, logs);
    });
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(50);
    expect(await json(replicaUrl, '/api/v1/stats')).toEqual(await json(primaryUrl, '/api/v1/stats'));
    expect((await fetch(`${replicaUrl}/services/swapped-example-com`)).status).toBe(200);
    // The copy it replaced is closed and removed once its last request finished.
    expect(readdirSync(join(dir, 'replica', 'replica')).filter((name) => name.endsWith('.db'))).toHaveLength(1);
  }, 60_000);

  it('refuses an empty SQLite file, an older copy and copies over REPLICA_MAX_BYTES, deletes them and keeps serving its copy', async () => {
    const held = (await json(replicaUrl, '/api/v1/stats'));
    const expectStillServing = async () => {
      expect((await fetch(`${replicaUrl}/api/v1/services/swapped-example-com`)).status).toBe(200);
      expect(await json(replicaUrl, '/api/v1/stats')).toEqual(held);
      expect(copiesOnDisk().filter((name) => name.endsWith('.db'))).toHaveLength(1);
      expect(copiesOnDisk().filter((name) => !name.endsWith('.db') && !name.endsWith('.db-wal') && !name.endsWith('.db-shm'))).toEqual([]);
    };
    const empty = join(dir, 'empty.db');
    new Database(empty).exec('CREATE TABLE t (a); DROP TABLE t').close();
    await putCopy(gzipSync(readFileSync(empty)));
    await waitForLog(/refused a new copy: schema version 0, this server reads \d+/);
    await expectStillServing();

    upsertServices(db, [makeService({ id: 'refused-example-com', name: 'Never Served' })], FIXTURE_NOW.toISOString());
    await publishCopy(1);
    await waitForLog(/refused a new copy: generation 1 is not newer than the one served \(\d+\)/);
    await expectStillServing();

    const copy = readFileSync(join(dir, 'copy.db'));
    await putCopy(gzipSync(Buffer.concat([copy, Buffer.alloc(MAX_BYTES)])));
    await waitForLog(/refused a new copy: over REPLICA_MAX_BYTES \(4194304 bytes\) unpacked/);
    await expectStillServing();
    await putCopy(randomBytes(MAX_BYTES + 1));
    await waitForLog(/refused a new copy: over REPLICA_MAX_BYTES \(4194304 bytes\) downloaded/);
    await expectStillServing();
    expect((await fetch(`${replicaUrl}/api/v1/services/refused-example-com`)).status).toBe(404);

    // A newer copy after them is swapped in, read as a plain SQLite file as well as gzip.
    writePublicCopy(db, join(dir, 'plain.db'), Date.now());
    await putCopy(readFileSync(join(dir, 'plain.db')));
    await waitFor('swapped in the newer copy', async () => (await fetch(`${replicaUrl}/api/v1/services/refused-example-com`)).status === 200, logs);
  }, 90_000);
});
