import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDatabaseCopy } from '../../data/backup.ts';
import { openDatabase, type DB } from '../../data/db.ts';
import { migrations } from '../../data/migrations/index.ts';
import { recordProbe } from '../../data/probes.ts';
import { COPY_META_TABLE, PUBLIC_TABLES } from '../../data/public-copy.ts';
import { upsertServices } from '../../data/services.ts';
import { makeService } from '../../data/testing.ts';
import { PUBLISH_PROCESS } from '../../processes.ts';
import { compile, PUBLISH_ENTRIES } from '../../scripts/compile.ts';
import { refreshSite, renderChanged } from '../build/refresh.ts';
import { buildFixtureSite, FIXTURE_NOW, openFixtureDatabase, plantPrivateData, readRelease, type FixtureSite } from '../testing.ts';
import { LEGACY_MANIFEST_PATH, MANIFEST_PATH } from './manifest.ts';
import { createStore } from './store.ts';
import { createS3Client, readTarget } from './target.ts';
import { startLocalStore, startStoreProxy, type LocalStore, type StoreProxy } from './testing.ts';

const BUCKET = 'site';
const PREFIX = 'index/';
const TARGET = `s3://${BUCKET}/${PREFIX}`;

interface Stored {
  body: Buffer;
  contentType: string | undefined;
  cacheControl: string | undefined;
  contentEncoding: string | undefined;
}

/** The storage FTS5 keeps for a full-text table of the allow-list (its shadow tables), which holds that table's text. */
const isShadowOfListed = (name: string) =>
  ['data', 'idx', 'content', 'docsize', 'config'].some((suffix) => name.endsWith(`_${suffix}`) && name.slice(0, -suffix.length - 1) in PUBLIC_TABLES);

/** Every table of a copy and its columns, as SQLite lists them (the listed full-text tables' own storage left out). */
function readSchema(copy: Database.Database): Record<string, string[]> {
  const tables = (copy.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`)
    .pluck().all() as string[]).filter((name) => !isShadowOfListed(name));
  return Object.fromEntries(tables.map((table) => [table, copy.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]]));
}

/** Where the publish's Litestream replica goes (its objects are checked by server/replica-litestream.test.ts). */
const LITESTREAM_PREFIX = `${PREFIX}litestream/`;

/** Every object under the prefix but the Litestream replica's, by its path below it. */
async function readStore(client: S3Client): Promise<Map<string, Stored>> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: PREFIX, ContinuationToken: token, MaxKeys: 50 }));
    keys.push(...(page.Contents ?? []).map((object) => object.Key!).filter((key) => !key.startsWith(LITESTREAM_PREFIX)));
    token = page.NextContinuationToken;
  } while (token);
  const stored = new Map<string, Stored>();
  for (const key of keys) {
    const answer = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    stored.set(key.slice(PREFIX.length), {
      body: Buffer.from(await answer.Body!.transformToByteArray()),
      contentType: answer.ContentType,
      cacheControl: answer.CacheControl,
      contentEncoding: answer.ContentEncoding,
    });
  }
  return stored;
}

/** Paths the API answers, not the bucket. */
const API_PATHS = /^(api|mcp|badge|purchase|x402)(\/|$)|^openapi\.json$/;
const LINKING = /\.(html|xml|json|md|txt)$/;

/** The same-site paths a file links: a page's root-relative href, src and action, any file's absolute URL on the site. */
function linksOf(path: string, body: Buffer): string[] {
  if (!LINKING.test(path)) return [];
  const text = body.toString('utf8');
  const found = [...text.matchAll(/https:\/\/index\.test(\/[^\s"'`<>&\\)\]]*)?/g)].map((match) => (match[1] ?? '/').replace(/[.,;:!?]+$/, ''));
  if (path.endsWith('.html')) found.push(...[...text.matchAll(/\s(?:href|src|action)="(\/(?!\/)[^"]*)"/g)].map((match) => match[1]!));
  return found.map((link) => link.replace(/[#?].*$/, '').replace(/^\/+|\/+$/g, '')).filter((target) => !API_PATHS.test(target));
}

const resolves = (target: string, stored: ReadonlyMap<string, Buffer>) =>
  (target === '' ? ['index.html'] : [target, `${target}/index.html`]).some((candidate) => stored.has(candidate));

/**
 * Same-site links of every stored file that the bucket should answer and does not, as `file -> /target`. A new
 * page and its feed link each other, so one of them goes up first: the feed's link back to its page (in `release`)
 * is the one allowed to wait.
 */
function findBrokenLinks(stored: ReadonlyMap<string, Buffer>, release: ReadonlyMap<string, Buffer> = new Map()): string[] {
  const broken: string[] = [];
  for (const [path, body] of stored) {
    for (const target of linksOf(path, body)) {
      if (resolves(target, stored)) continue;
      const page = release.get(`${target}/index.html`);
      if (!path.endsWith('.html') && page && linksOf(`${target}/index.html`, page).includes(path)) continue;
      broken.push(`${path} -> /${target}`);
    }
  }
  return [...new Set(broken)];
}

/** A request of the publish's site upload (not of its Litestream replica). */
const isSitePut = (line: string) => line.startsWith('PUT ') && !line.includes(`/${BUCKET}/${LITESTREAM_PREFIX}`);

const bodies = (stored: Map<string, Stored>) => new Map([...stored].map(([path, object]) => [path, object.body]));

describe('npm run publish against a real S3-compatible store', () => {
  /** The publish compiled and run with its node flags, as `npm run publish` runs it. */
  let script: string;
  let store: LocalStore;
  let proxy: StoreProxy;
  let client: S3Client;
  let dir: string;
  let db: DB;
  let site: FixtureSite;
  let env: NodeJS.ProcessEnv;
  let planted: string[];

  const publish = (extra: NodeJS.ProcessEnv = {}, args: string[] = ['--to', TARGET]) => {
    const child = spawn(process.execPath, [...PUBLISH_PROCESS.nodeArgs, script, ...args], {
      env: { ...PUBLISH_PROCESS.env, ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
    return { child, done };
  };
  const expectStoreEqualsRelease = async () => {
    const stored = await readStore(client);
    const release = readRelease(site.distDir);
    expect([...stored.keys()].filter((path) => path !== MANIFEST_PATH && path !== 'snapshots/index.db.gz').sort()).toEqual([...release.keys()].sort());
    for (const [path, body] of release) expect(stored.get(path)!.body.equals(body), path).toBe(true);
    return stored;
  };

  beforeAll(async () => {
    script = (await compile(PUBLISH_ENTRIES))[0]!;
    store = await startLocalStore([BUCKET]);
    proxy = await startStoreProxy(store.endpoint);
    client = createS3Client(store.env);
    dir = mkdtempSync(join(tmpdir(), 'psi-publish-test-'));
    // A database file (the publish is another process), holding the fixture.
    writeDatabaseCopy(openFixtureDatabase(), join(dir, 'index.db'));
    db = openDatabase(join(dir, 'index.db'));
    planted = plantPrivateData(db).values;
    site = await buildFixtureSite(db);
    env = {
      ...process.env,
      ...store.env,
      S3_ENDPOINT: proxy.url,
      DATABASE_PATH: join(dir, 'index.db'),
      DIST_DIR: site.distDir,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
  }, 120_000);
  afterAll(async () => {
    db?.close();
    site?.remove();
    await proxy?.close();
    await store?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('uploads every file of the release byte for byte with its type and caching, and the public copy of the database in place of the whole one', async () => {
    // What an earlier publish left: the whole database, which holds secrets, listed by a manifest in the legacy JSON
    // format, which this publish reads once, replaces with the line format and deletes.
    const target = createStore(client, readTarget(TARGET));
    await target.put('snapshots/index.db', readFileSync(join(dir, 'index.db')), { contentType: 'application/vnd.sqlite3', cacheControl: 'x' });
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${LEGACY_MANIFEST_PATH}`, Body: JSON.stringify({ version: 1, files: { 'snapshots/index.db': { digest: 'old', size: 1 } } }) }));
    const { code, stdout } = await publish().done;
    expect(code).toBe(0);
    // The public copy's pages also went to its Litestream replica: a snapshot and the WAL after it.
    const replica = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: LITESTREAM_PREFIX }));
    expect((replica.Contents ?? []).map((object) => object.Key!.replace(/^.*\/(snapshots|wal)\/.*$/, '$1'))).toContain('snapshots');
    const files = readRelease(site.distDir).size;
    expect(stdout).toContain(`${files + 1} uploaded`);
    expect(stdout).toMatch(/0 unchanged, 1 deleted, in \d+\.\d s/);
    const stored = await expectStoreEqualsRelease();
    expect(stored.has('snapshots/index.db')).toBe(false);
    expect(stored.has(LEGACY_MANIFEST_PATH)).toBe(false);
    expect(stored.get(MANIFEST_PATH)!.body.toString('utf8').split('\n').filter((line) => line.startsWith('index.html\t'))).toHaveLength(1);
    const headers = (path: string) => [stored.get(path)!.contentType, stored.get(path)!.cacheControl];
    const page = ['text/html; charset=utf-8', 'public, max-age=60, s-maxage=300'];
    expect(headers('index.html')).toEqual(page);
    expect(headers('services/alpha-example-com/index.html')).toEqual(page);
    expect(headers('snapshots/services.json')).toEqual(['application/json; charset=utf-8', 'public, max-age=60, s-maxage=300']);
    expect(headers('sitemap.xml')[0]).toBe('application/xml; charset=utf-8');
    expect(headers('llms.txt')[0]).toBe('text/plain; charset=utf-8');
    expect(headers('pricing.md')[0]).toBe('text/markdown; charset=utf-8');
    const css = [...stored.keys()].find((path) => path.startsWith('_astro/') && path.endsWith('.css'))!;
    expect(headers(css)).toEqual(['text/css; charset=utf-8', 'public, max-age=31536000, immutable']);
    expect(headers('snapshots/index.db.gz')).toEqual(['application/gzip', 'public, max-age=60, s-maxage=300']);
    expect(stored.get('snapshots/index.db.gz')!.contentEncoding).toBeUndefined();
    const bytes = gunzipSync(stored.get('snapshots/index.db.gz')!.body);
    writeFileSync(join(dir, 'copy.db'), bytes);
    const copy = new Database(join(dir, 'copy.db'), { readonly: true });
    expect(copy.prepare('SELECT count(*) FROM services').pluck().get()).toBe(6);
    expect(copy.prepare('SELECT count(*) FROM probes').pluck().get()).toBe(db.prepare('SELECT count(*) FROM probes').pluck().get());
    expect(copy.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(copy.prepare(`SELECT generation FROM ${COPY_META_TABLE}`).pluck().get()).toBeGreaterThan(Date.now() - 60_000);
    // The verified owner stays a public fact; their key does not.
    expect(copy.prepare(`SELECT owner_verified FROM services WHERE id = 'dual-example-com'`).pluck().get()).toBe(1);
    const schema = readSchema(copy);
    copy.close();
    const allowed: Record<string, readonly string[]> = { ...PUBLIC_TABLES, [COPY_META_TABLE]: ['id', 'generation'] };
    for (const [table, columns] of Object.entries(schema)) {
      expect(allowed[table], `table ${table} is not on the allow-list`).toBeDefined();
      expect(columns.filter((column) => !allowed[table]!.includes(column)), `columns of ${table} not on the allow-list`).toEqual([]);
    }
    const compressed = stored.get('snapshots/index.db.gz')!.body;
    for (const value of planted) {
      expect(bytes.includes(value), `${value} in the copy`).toBe(false);
      expect(compressed.includes(value), `${value} in the compressed copy`).toBe(false);
    }
    expect(db.prepare('SELECT count(*) FROM webhooks').pluck().get()).toBe(1);
  }, 60_000);

  it('uploads nothing the second time: no public row differs, so the copy keeps its stamp and its bytes', async () => {
    const before = await readStore(client);
    proxy.requests.length = 0;
    const { code, stdout } = await publish().done;
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`0 uploaded \\(0\\.0 KiB\\), ${readRelease(site.distDir).size + 1} unchanged, 0 deleted`));
    // Neither the site, nor the copy, nor its Litestream replica: nothing is written to the store.
    expect(proxy.requests.filter((line) => line.startsWith('PUT ') || line.startsWith('POST ') || line.startsWith('DELETE '))).toEqual([]);
    const after = await readStore(client);
    expect(after.get('snapshots/index.db.gz')!.body.equals(before.get('snapshots/index.db.gz')!.body)).toBe(true);
  }, 60_000);

  it('after a small change uploads only the files that changed', async () => {
    recordProbe(db, { service_id: 'fresh-example-com', probed_at: FIXTURE_NOW.toISOString(), ok: true, status_code: 402, method: 'GET', latency_ms: 120, reason: null, detected_rails: ['x402'] });
    await refreshSite(db, site.options);
    proxy.requests.length = 0;
    const { code, stdout } = await publish().done;
    expect(code).toBe(0);
    const uploaded = Number(/(\d+) uploaded/.exec(stdout)![1]);
    const total = readRelease(site.distDir).size + 1;
    // The service's page, snapshot and feeds, the home page, the index snapshots and feeds (the probe is a change:
    // it went live), the recent changes page, llms.txt and the database copy.
    expect(uploaded).toBeGreaterThanOrEqual(3);
    expect(uploaded).toBeLessThanOrEqual(14);
    expect(uploaded / total).toBeLessThan(0.2);
    const puts = proxy.requests.filter((line) => isSitePut(line)).map((line) => line.slice(4).replace(`/${BUCKET}/${PREFIX}`, '').replace(/\?.*$/, ''));
    expect(puts).toContain('services/fresh-example-com/index.html');
    expect(puts).not.toContain('services/alpha-example-com/index.html');
    await expectStoreEqualsRelease();
  }, 60_000);

  it('stopped after any upload leaves every same-site link resolvable: uploads follow the links the files hold', async () => {
    // Two new services (pages and feeds that link each other, listed by the home page and the sitemap), one going live.
    upsertServices(db, ['four', 'five'].map((name) => makeService({ id: `${name}-example-org`, name: `New ${name}` })), FIXTURE_NOW.toISOString());
    recordProbe(db, { service_id: 'shop-example', probed_at: FIXTURE_NOW.toISOString(), ok: true, status_code: 402, method: 'GET', latency_ms: 90, reason: null, detected_rails: ['acp'] });
    await refreshSite(db, site.options);
    const before = bodies(await readStore(client));
    expect(findBrokenLinks(before)).toEqual([]);
    proxy.requests.length = 0;
    const { code } = await publish({}, ['--to', TARGET, '--concurrency', '1']).done;
    expect(code).toBe(0);
    const after = bodies(await expectStoreEqualsRelease());
    const release = readRelease(site.distDir);
    const uploads = proxy.requests.filter((line) => isSitePut(line) && !line.includes('.publish/'))
      .map((line) => line.slice(4).replace(`/${BUCKET}/${PREFIX}`, '').replace(/\?.*$/, ''));
    expect(uploads).toEqual(expect.arrayContaining(['services/four-example-org/index.html', 'services/four-example-org/feed.xml', 'index.html', 'sitemap.xml']));
    // What the store holds when the publish stops after each upload in turn.
    const stored = new Map(before);
    for (const [k, path] of uploads.entries()) {
      stored.set(path, after.get(path)!);
      expect(findBrokenLinks(stored, release), `stopped after upload ${k + 1} (${path})`).toEqual([]);
    }
    expect(uploads.indexOf('index.html')).toBeGreaterThan(uploads.indexOf('services/five-example-org/index.html'));
  }, 60_000);

  it('killed midway leaves every page readable and every link resolvable, and the next publish completes it', async () => {
    upsertServices(db, ['one', 'two', 'three'].map((name) => makeService({ id: `${name}-example-net`, name: `New ${name}` })), FIXTURE_NOW.toISOString());
    db.prepare(`DELETE FROM service_endpoints WHERE service_id = 'many-example-com' AND position >= 60`).run();
    upsertServices(db, [], FIXTURE_NOW.toISOString());
    await refreshSite(db, site.options);
    await renderChanged(db, ['many-example-com'], site.options);
    proxy.requests.length = 0;
    proxy.delayMs = 150;
    const run = publish({}, ['--to', TARGET, '--concurrency', '1']);
    // Killed once a new service's page is going up: after the snapshots it links, before the home page that links it.
    while (!proxy.requests.some((line) => /^PUT \/site\/index\/services\/(one|two|three)-example-net\/index\.html/.test(line))) await new Promise((resolve) => setTimeout(resolve, 10));
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    proxy.delayMs = 0;
    const midway = await readStore(client);
    expect(midway.has('snapshots/services/three-example-net.json')).toBe(true);
    expect(midway.has('services/one-example-net/index.html') && midway.has('services/three-example-net/index.html')).toBe(false);
    expect(midway.get('index.html')!.body.toString()).not.toContain('three-example-net');
    expect(findBrokenLinks(bodies(midway), readRelease(site.distDir))).toEqual([]);
    expect(midway.has('services/many-example-com/endpoints/3/index.html')).toBe(true);

    const { code, stdout } = await publish().done;
    expect(code).toBe(0);
    expect(stdout).toMatch(/ 2 deleted/);
    const stored = await expectStoreEqualsRelease();
    expect(stored.has('services/three-example-net/index.html')).toBe(true);
    expect(findBrokenLinks(bodies(stored))).toEqual([]);
  }, 90_000);

  it('a store answering 500 is a clear error with a non-zero exit, and nothing is deleted', async () => {
    db.prepare(`DELETE FROM service_endpoints WHERE service_id = 'many-example-com' AND position >= 50`).run();
    await renderChanged(db, ['many-example-com'], site.options);
    proxy.requests.length = 0;
    proxy.fail = (method, path) => method === 'PUT' && path.startsWith(`/${BUCKET}/${PREFIX}services/`);
    const { code, stderr } = await publish().done;
    proxy.fail = null;
    expect(code).toBe(1);
    expect(stderr).toMatch(/publish failed: uploading index\/services\/many-example-com\/index\.html: the store answered HTTP 500 InternalError/);
    expect(proxy.requests.some((line) => line.startsWith('POST ') && line.includes('delete'))).toBe(false);
    expect((await readStore(client)).has('services/many-example-com/endpoints/2/index.html')).toBe(true);

    const again = await publish().done;
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/ 1 deleted/);
    await expectStoreEqualsRelease();
  }, 90_000);

  it('wrong credentials and a missing bucket are clear errors with a non-zero exit', async () => {
    const wrong = await publish({ AWS_ACCESS_KEY_ID: 'not-a-key' }).done;
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/publish failed: .*the store refused the credentials \(.*HTTP 403\): check AWS_ACCESS_KEY_ID/);
    const missing = await publish({}, ['--to', 's3://no-such-bucket/x']).done;
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the bucket does not exist (s3://no-such-bucket/x/)');
    const bad = await publish({}, ['--to', 'https://example.com/bucket']).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to wants s3://BUCKET/PREFIX');
  }, 60_000);
});
