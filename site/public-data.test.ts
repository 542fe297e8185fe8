import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, serveApp } from '../api/app.ts';
import { testConfig } from '../api/testing.ts';
import { writeDatabaseCopy } from '../data/backup.ts';
import { openDatabase, type DB } from '../data/db.ts';
import { buildFixtureSite, FIXTURE_NOW, openFixtureDatabase, plantPrivateData, readRelease, type FixtureSite, type PlantedData } from './testing.ts';

/*
 * Public data only (DESIGN.md "Third wave"): one of every private value is planted in a database file, the real
 * build renders the site from it and the real server serves it; then every file of the release and the answers a
 * client gets without a key (REST and MCP) are searched for each planted value.
 */

let dir: string;
let db: DB;
let site: FixtureSite;
let planted: PlantedData;
let origin: string;
let server: ReturnType<typeof serveApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'psi-public-data-'));
  writeDatabaseCopy(openFixtureDatabase(), join(dir, 'index.db'));
  db = openDatabase(join(dir, 'index.db'));
  planted = plantPrivateData(db);
  const distDir = join(dir, 'dist');
  const config = testConfig({ databasePath: join(dir, 'index.db'), trustProxy: true });
  const app = createApp({ db, config, now: () => FIXTURE_NOW, lookup: async () => ['93.184.215.14'], site: { distDir } });
  server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  planted.values.push(...await plantThroughApi());
  site = await buildFixtureSite(db, { distDir });
}, 120_000);

/**
 * What clients send through the API that must stay private: a submission's contact and idempotency key, a webhook's
 * receiver and the secret answered, a claim's token and the claim secret answered, and each client's address.
 * Answers every value that must appear nowhere public.
 */
async function plantThroughApi(): Promise<string[]> {
  const post = async (path: string, body: unknown, client: string, headers: Record<string, string> = {}) => {
    const response = await fetch(origin + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client, ...headers }, body: JSON.stringify(body) });
    expect(response.ok, `${path} ${response.status}`).toBe(true);
    return response.json();
  };
  const submitted = await post('/api/v1/submit', { endpoint: 'https://api.second-submission.example/pay', contact: 'second-contact@owner.example' },
    '192.0.2.201', { 'idempotency-key': 'second-idem-key-91c4' });
  expect(submitted.ok).toBe(true);
  const webhook = await post('/api/v1/webhooks', { url: 'https://second-receiver.example/hook' }, '192.0.2.202');
  const claim = await post('/api/v1/claims', { service_id: 'alpha-example-com' }, '192.0.2.203');
  return ['second-contact@owner.example', 'second-idem-key-91c4', 'second-submission.example', '192.0.2.201',
    webhook.secret, webhook.id, 'second-receiver.example', '192.0.2.202', claim.id, claim.token, claim.claim_secret, '192.0.2.203'];
}
afterAll(async () => {
  await server?.close(true);
  db?.close();
  site?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The planted values found in `text`. */
const leaked = (text: string) => planted.values.filter((value) => text.includes(value));
/** A submission answers its own endpoint to whoever holds its id: the one planted value it may hold. */
const SUBMITTED_HOST = 'planted-submission.example';
const leakedBeyondSubmission = (text: string) => leaked(text).filter((value) => value !== SUBMITTED_HOST);

/** A file's text, unpacked first when it is gzip. */
const readText = (path: string, body: Buffer) => (path.endsWith('.gz') ? gunzipSync(body) : body).toString('utf8');

describe('what is served without a key or published holds public data only', () => {
  it('no file of the release (pages, snapshots, feeds, sitemap, llms.txt) holds a planted value', () => {
    const release = readRelease(site.distDir);
    expect(release.size).toBeGreaterThan(20);
    const found = [...release].flatMap(([path, body]) => leaked(readText(path, body)).map((value) => `${path}: ${value}`));
    expect(found).toEqual([]);
  });

  it('no answer of the API or the pages without a key holds a planted value', async () => {
    const [claimId] = planted.claimIds;
    const requests: Array<[string, RequestInit?]> = [
      ['/api/v1/services?limit=500'], ['/api/v1/services/alpha-example-com'], ['/api/v1/services/dual-example-com'],
      ['/api/v1/services/batch?ids=alpha-example-com,dual-example-com'], ['/api/v1/services/dual-example-com/changes'],
      ['/api/v1/changes?limit=500'], ['/api/v1/stats'], ['/api/v1/status'], ['/api/v1/submissions/' + planted.submissionId],
      ['/api/v1/webhooks/' + planted.webhookId], ['/api/v1/webhooks/' + planted.webhookId + '/deliveries'],
      ['/api/v1/claims/' + claimId + '/verify', { method: 'POST', headers: { authorization: 'Bearer clms_wrong' } }],
      ['/api/v1/purchase'], ['/openapi.json'], ['/llms.txt'], ['/feed.xml'], ['/feed.json'], ['/services/dual-example-com/feed.json'],
      ['/badge/dual-example-com.svg'], ['/'], ['/services/dual-example-com'], ['/status'], ['/changes'], ['/sitemap.xml'],
      ['/submissions/' + planted.submissionId], ['/no-such-page'], ['/api/v1/no-such-route'],
    ];
    const found: string[] = [];
    for (const [path, init] of requests) {
      const response = await fetch(origin + path, init);
      const search = path.includes(planted.submissionId) ? leakedBeyondSubmission : leaked;
      found.push(...search(await response.text()).map((value) => `${path} (${response.status}): ${value}`));
    }
    expect(found).toEqual([]);
  });

  it('no MCP answer holds a planted value', async () => {
    const client = new Client({ name: 'psi-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
    try {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['search_services', { limit: 500 }], ['get_service', { id: 'dual-example-com' }], ['get_services', { ids: ['alpha-example-com', 'dual-example-com'] }],
        ['get_stats', {}], ['get_status', {}], ['get_changes', {}], ['get_submission', { id: planted.submissionId }],
      ];
      const found = leaked(JSON.stringify(await client.listTools())).map((value) => `tools/list: ${value}`);
      for (const [name, args] of calls) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, name).toBeFalsy();
        const text = JSON.stringify(result);
        found.push(...(name === 'get_submission' ? leakedBeyondSubmission(text) : leaked(text)).map((value) => `${name}: ${value}`));
      }
      expect(found).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
