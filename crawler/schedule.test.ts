import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../data/db.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { startCrawlSchedule } from './schedule.ts';

/** A real crawl child probing slow local services: pages are refreshed while the pass runs, not only after it. */
const dir = mkdtempSync(join(tmpdir(), 'psi-schedule-'));
let slow: Server;
afterAll(() => {
  slow?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the crawl schedule', () => {
  it('calls onPassProgress on its timer while a pass runs, then onPassFinished once', async () => {
    slow = createServer((_request, response) => setTimeout(() => response.writeHead(402).end('{}'), 2500)).listen(0, '127.0.0.1');
    await new Promise((resolve) => slow.once('listening', resolve));
    const port = (slow.address() as { port: number }).port;
    const databasePath = join(dir, 'index.db');
    const db = openDatabase(databasePath);
    upsertServices(db, [1, 2].map((n) => makeService({ id: `slow-${n}`, endpoint: `http://127.0.0.1:${port}/slow-${n}` })), new Date().toISOString());
    db.close();
    const events: string[] = [];
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const stop = startCrawlSchedule({
      probeIntervalMs: 3_600_000,
      discoveryIntervalMs: 3_600_000,
      env: { ...process.env, DATABASE_PATH: databasePath, ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
      progressEveryMs: 300,
      onPassProgress: () => {
        events.push('progress');
      },
      onPassFinished: () => {
        events.push('finished');
        finished();
      },
    });
    await done;
    await stop();
    expect(events.at(-1)).toBe('finished');
    expect(events.filter((event) => event === 'finished')).toHaveLength(1);
    expect(events.filter((event) => event === 'progress').length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
