import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordChange } from '../data/changes.ts';
import { openDatabase } from '../data/db.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { WebhookCreated, WebhookDeliveryList } from '../domain/schemas.ts';
import { PROJECT_ROOT } from '../project.ts';
import { startReceiver } from './testing.ts';

/*
 * At least once across restarts: the real server (server/main.ts, which runs the delivery worker as its child) is
 * killed with SIGKILL while delivering to a slow receiver, then started again on the same database; every change
 * reaches the receiver, verified, and the worker of the killed server delivers nothing after it died.
 */

const dir = mkdtempSync(join(tmpdir(), 'psi-webhook-restart-'));
const databasePath = join(dir, 'index.db');
const CHANGES = 40;
const running: ChildProcess[] = [];

afterAll(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
});

async function startServer(): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'server/main.ts'), '--no-crawl'], {
    env: { ...process.env, PORT: '0', DATABASE_PATH: databasePath, DIST_DIR: join(dir, 'dist'), ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const origin = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no URL logged: ${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]!).origin);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  return { child, origin };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook deliveries across a kill -9 of the server', () => {
  it('delivers every change at least once, each verified, and nothing after the kill', async () => {
    const db = openDatabase(databasePath);
    upsertServices(db, [makeService({ id: 'a-test' })], new Date().toISOString());
    const receiver = await startReceiver();
    receiver.answer.delayMs = 40;
    try {
      let server = await startServer();
      const created = await fetch(`${server.origin}/api/v1/webhooks`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: receiver.url, types: ['went_live', 'went_dark'] }),
      });
      expect(created.status).toBe(201);
      const hook = WebhookCreated.parse(await created.json());
      receiver.secret = hook.secret;
      const ids = db.transaction(() => Array.from({ length: CHANGES }, (_, i) => recordChange(db, {
        at: new Date().toISOString(), service_id: 'a-test', type: i % 2 ? 'went_dark' : 'went_live', summary: `Flip ${i}.`,
      }).id))();

      for (let i = 0; i < 600 && receiver.received.length < 8; i++) await sleep(50);
      expect(receiver.received.length).toBeGreaterThanOrEqual(8);
      server.child.kill('SIGKILL');
      await new Promise((resolve) => server.child.once('exit', resolve));
      // The worker, a child of the killed server, stops when its parent's pipe closes: nothing more arrives.
      await sleep(1_500);
      const afterKill = receiver.received.length;
      expect(afterKill).toBeLessThan(CHANGES);
      await sleep(1_000);
      expect(receiver.received.length).toBe(afterKill);

      server = await startServer();
      const delivered = () => new Set(receiver.received.map((r) => JSON.parse(r.body).data.id));
      for (let i = 0; i < 600 && delivered().size < CHANGES; i++) await sleep(50);
      expect([...delivered()].sort()).toEqual(ids);
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      // At least once: an attempt cut short by the kill may come again, under the same webhook-id.
      expect(receiver.received.length - CHANGES).toBeLessThanOrEqual(1);
      for (let i = 0; i < 100; i++) {
        const log = WebhookDeliveryList.parse(await (await fetch(`${server.origin}/api/v1/webhooks/${hook.id}/deliveries`, { headers: { authorization: `Bearer ${hook.secret}` } })).json());
        if (log.deliveries.every((d) => d.status === 'delivered')) break;
        await sleep(50);
      }
      const log = WebhookDeliveryList.parse(await (await fetch(`${server.origin}/api/v1/webhooks/${hook.id}/deliveries`, { headers: { authorization: `Bearer ${hook.secret}` } })).json());
      expect(log.deliveries).toHaveLength(CHANGES);
      expect(log.deliveries.every((d) => d.status === 'delivered')).toBe(true);
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    } finally {
      db.close();
      await receiver.close();
    }
  }, 300_000);
});
