import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DNS_TIMEOUT_MS } from '../net/dns.ts';
import { startTestDnsServer } from '../net/testing/dns-server.ts';
import { openDatabase } from '../data/db.ts';
import { createWebhook, listDeliveries, queuePing } from '../data/webhooks.ts';
import { PROJECT_ROOT } from '../project.ts';
import { DELIVERY_TIMEOUT_MS } from './send.ts';
import { startReceiver } from './testing.ts';

/*
 * The delivery worker's own lookup of a receiver's host: the real worker process (scripts/deliver.ts) asks
 * DNS_SERVERS (a real DNS server on loopback that knows the healthy receiver's name and never answers names under
 * `silent.test`) within the resolver's time limit, so 16 receivers whose DNS is silent fail their attempt in seconds,
 * and the healthy receiver, known only to that server, gets its delivery.
 */

const dir = mkdtempSync(join(tmpdir(), 'psi-delivery-lookup-'));
const databasePath = join(dir, 'index.db');
const SILENT = 16;
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a webhook delivery\'s lookup of the receiver\'s host', () => {
  it('asks DNS_SERVERS within its time limit: silent names fail fast, a name only that server knows is delivered to', async () => {
    const dns = await startTestDnsServer({ a: new Map([['healthy.hooks.test', ['127.0.0.1']]]), silent: (name) => name.endsWith('silent.test') });
    const receiver = await startReceiver();
    const db = openDatabase(databasePath);
    try {
      const port = new URL(receiver.url).port;
      const now = new Date().toISOString();
      const subscribe = (id: string, host: string) => {
        const hook = createWebhook(db, {
          id, url: `http://${host}:${port}/hook`, secret: `whsec_${randomBytes(24).toString('base64')}`, types: [], services: [],
          rail: null, chain: null, asset: null, client: '198.51.100.9',
        }, now);
        queuePing(db, hook, `msg_${id}`, now);
        return hook;
      };
      const silent = Array.from({ length: SILENT }, (_, i) => subscribe(`wh_silent${i}`, `hook-${i}.silent.test`));
      const healthy = subscribe('wh_healthy', 'healthy.hooks.test');
      receiver.secret = (db.prepare('SELECT secret FROM webhooks WHERE id = ?').pluck().get(healthy.id) as string);

      const worker = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'scripts/deliver.ts')], {
        env: { ...process.env, DATABASE_PATH: databasePath, DNS_SERVERS: dns.address, ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      children.push(worker);
      let stderr = '';
      worker.stderr!.on('data', (chunk) => (stderr += chunk));

      for (let i = 0; i < 400 && receiver.received.length === 0; i++) await sleep(50);
      expect(receiver.received.map((got) => [got.id, got.verified]), stderr).toEqual([['msg_wh_healthy', true]]);
      expect(dns.queries).toContain('healthy.hooks.test');
      const deliveredAt = performance.now();

      // Each silent receiver's attempt ends once the resolver gives up, well before a receiver's own time limit.
      const attempted = () => silent.every((hook) => listDeliveries(db, hook.id)[0]!.attempts === 1);
      while (!attempted() && performance.now() - deliveredAt < DELIVERY_TIMEOUT_MS) await sleep(50);
      expect(performance.now() - deliveredAt).toBeLessThan(DNS_TIMEOUT_MS + 2_000);
      for (const hook of silent) {
        const [delivery] = listDeliveries(db, hook.id);
        expect(delivery).toMatchObject({ status: 'pending', last_status: null, last_error: expect.stringContaining('ENOTFOUND') });
      }
      expect(dns.queries).toEqual(expect.arrayContaining(silent.map((_, i) => `hook-${i}.silent.test`)));
      worker.stdin!.end();
    } finally {
      db.close();
      dns.close();
      await receiver.close();
    }
  }, 60_000);
});
