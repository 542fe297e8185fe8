import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllowList } from '../net/guard.ts';
import { listChanges, recordChange } from '../data/changes.ts';
import { createClaim, verifyClaim } from '../data/claims.ts';
import { openDatabase } from '../data/db.ts';
import { getService } from '../data/service-read.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { WebhookCreated } from '../domain/schemas.ts';
import { PROJECT_ROOT } from '../project.ts';
import { startReceiver, type Receiver } from '../webhooks/testing.ts';
import { createApp, serveApp } from './app.ts';
import { hashSecret, newOwnerKey } from './owner-key.ts';
import { testConfig } from './testing.ts';

/*
 * Owner writes while another process holds the database's write lock: the real webhook worker (scripts/deliver.ts, a
 * process of its own on the same SQLite file) fans a queue of changes out to real receivers and records each batch of
 * attempts, while owners edit, delist and relist 24 services over a real socket. No write may answer 5xx, and
 * every accepted write must be in the database and in the change log.
 */

const dir = mkdtempSync(join(tmpdir(), 'psi-owner-writes-'));
const databasePath = join(dir, 'index.db');
const SERVICES = 24;
/** Each service's owner uses its whole hourly allowance of actions (api/owner-runtime.ts). */
const ACTIONS_PER_SERVICE = 10;
const QUEUED_CHANGES = 6000;
const children: ChildProcess[] = [];
const receivers: Receiver[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(receivers.map((receiver) => receiver.close()));
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The webhook worker as `npm start` runs it: a child process on the same database file. */
function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'scripts/deliver.ts')], {
    env: { ...process.env, DATABASE_PATH: databasePath, ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  children.push(child);
  return child;
}

/** The i-th action of an owner on their service: two edits, a delist, a relist, and again. */
function ownerAction(id: string, i: number): { method: string; path: string; body?: unknown; type: string } {
  const path = `/api/v1/services/${id}`;
  switch (i % 4) {
    case 0: return { method: 'PATCH', path, body: { name: `Name ${i}` }, type: 'edited' };
    case 1: return { method: 'PATCH', path, body: { description: `Description ${i}` }, type: 'edited' };
    case 2: return { method: 'POST', path: `${path}/delist`, body: { reason: `Pause ${i}` }, type: 'delisted' };
    default: return { method: 'POST', path: `${path}/relist`, type: 'relisted' };
  }
}

describe('owner writes while the webhook worker delivers', () => {
  it('answer no 5xx and lose no write', async () => {
    const db = openDatabase(databasePath);
    const ids = Array.from({ length: SERVICES }, (_, i) => `owned-${i}-example-com`);
    upsertServices(db, ids.map((id) => makeService({ id, name: `Directory ${id}` })), new Date().toISOString());
    const keys = new Map(ids.map((id) => {
      const key = newOwnerKey();
      const claim = createClaim(db, { service_id: id, secret_digest: hashSecret('unused'), client: 'test', now: new Date() });
      verifyClaim(db, claim, hashSecret(key), new Date().toISOString());
      return [id, key];
    }));
    const app = createApp({ db, config: testConfig({ allowPrivateTargets: parseAllowList('127.0.0.1') }), now: () => new Date() });
    const server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
    await server.ready();
    const origin = new URL(server.url!).origin;
    try {
      for (let i = 0; i < 8; i += 1) {
        const receiver = await startReceiver();
        receivers.push(receiver);
        const created = await fetch(`${origin}/api/v1/webhooks`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: receiver.url }),
        });
        expect(created.status).toBe(201);
        receiver.secret = WebhookCreated.parse(await created.json()).secret;
      }
      const at = new Date().toISOString();
      db.transaction(() => {
        for (let i = 0; i < QUEUED_CHANGES; i += 1) {
          recordChange(db, { at, service_id: 'queued-example-com', type: i % 2 ? 'went_dark' : 'went_live', summary: `Flip ${i}.` });
        }
      })();
      const worker = startWorker();
      let workerLog = '';
      worker.stderr!.on('data', (chunk: Buffer) => (workerLog += chunk));
      for (let i = 0; i < 1200 && receivers.every((r) => r.received.length === 0); i += 1) await sleep(50);
      expect(receivers.some((r) => r.received.length > 0), workerLog).toBe(true);

      const answers: Array<{ id: string; i: number; status: number; text: string }> = [];
      await Promise.all(ids.map(async (id) => {
        for (let i = 0; i < ACTIONS_PER_SERVICE; i += 1) {
          const action = ownerAction(id, i);
          const response = await fetch(`${origin}${action.path}`, {
            method: action.method,
            headers: { authorization: `Bearer ${keys.get(id)}`, 'content-type': 'application/json' },
            ...(action.body === undefined ? {} : { body: JSON.stringify(action.body) }),
          });
          answers.push({ id, i, status: response.status, text: await response.text() });
        }
      }));
      const delivering = receivers.reduce((sum, r) => sum + r.received.length, 0);

      expect(answers.filter((a) => a.status >= 500)).toEqual([]);
      expect(answers.every((a) => a.status === 200)).toBe(true);
      for (const id of ids) {
        const logged = listChanges(db, { service: id, limit: 100 }).changes.map((c) => c.type).filter((type) => type !== 'listed');
        expect(logged, id).toEqual(Array.from({ length: ACTIONS_PER_SERVICE }, (_, i) => ownerAction(id, i).type));
        expect(getService(db, id)).toMatchObject({ name: 'Name 8', description: 'Description 9' });
      }
      // The worker kept delivering while the owners wrote.
      expect(delivering).toBeGreaterThan(0);
      expect(worker.exitCode).toBeNull();
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
    } finally {
      await server.close(true);
      db.close();
    }
  }, 180_000);
});
