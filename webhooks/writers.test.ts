import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { recordChange } from '../data/changes.ts';
import { openDatabase } from '../data/db.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { createWebhook, fanOutChanges, listDeliveries } from '../data/webhooks.ts';

/*
 * The delivery worker beside another writer on the same SQLite file: a thread with its own connection holds the
 * write lock while the worker fans changes out, then commits. A transaction that read before it asked for the lock
 * fails at once with SQLITE_BUSY (waiting could not help: the other commit makes its snapshot stale); the worker's
 * starts IMMEDIATE, so it waits for the lock and goes on.
 */

const dir = mkdtempSync(join(tmpdir(), 'psi-webhook-writers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another writer: takes the write lock, writes, tells the test, holds the lock `holdMs`, then commits. */
function holdWriteLock(path: string, holdMs: number): { locked: Promise<void>; committed: Promise<void> } {
  const thread = new Worker(`
    const Database = require('better-sqlite3');
    const { parentPort, workerData } = require('node:worker_threads');
    const db = new Database(workerData.path);
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN IMMEDIATE');
    db.prepare("UPDATE webhooks SET failing_since = NULL").run();
    db.prepare("INSERT INTO webhook_fanout (id, seq) VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET seq = seq").run();
    parentPort.postMessage('locked');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
    db.exec('COMMIT');
    db.close();
  `, { eval: true, workerData: { path, holdMs } });
  const locked = new Promise<void>((resolve, reject) => {
    thread.once('message', () => resolve());
    thread.once('error', reject);
  });
  const committed = new Promise<void>((resolve, reject) => {
    thread.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`))));
  });
  return { locked, committed };
}

describe('the worker\'s transactions beside another writer', () => {
  it('fans changes out once the other writer commits, without SQLITE_BUSY', async () => {
    const path = join(dir, 'index.db');
    const db = openDatabase(path);
    try {
      const now = new Date().toISOString();
      upsertServices(db, [makeService({ id: 'a-test' })], now);
      createWebhook(db, { id: 'wh_a', url: 'https://hooks.example.com/psi', secret: 'whsec_x', types: [], services: [], rail: null, chain: null, asset: null, client: 'test' }, now);
      const change = recordChange(db, { at: now, service_id: 'a-test', type: 'went_live', summary: 'a-test went live.' });
      const writer = holdWriteLock(path, 300);
      await writer.locked;
      expect(() => fanOutChanges(db, now, 500)).not.toThrow();
      await writer.committed;
      expect(listDeliveries(db, 'wh_a').map((delivery) => [delivery.change_id, delivery.status])).toEqual([[change.id, 'pending']]);
    } finally {
      db.close();
    }
  });
});
