import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../data/db.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { crawlNodeArgs, startCrawlSchedule } from './schedule.ts';

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

describe('a crawl run by the schedule (--brief)', () => {
  it('puts the directories it could not read in one line, not a line each', () => {
    const sources = ['bazaar', 'bazaar', 'mpp'].flatMap((kind, k) => ['--source', `${kind}=http://127.0.0.1:9/directory-${k}`]);
    const run = (brief: boolean) => spawnSync(process.execPath, [...crawlNodeArgs(), ...sources, '--no-probe', ...(brief ? ['--brief'] : [])], {
      env: { ...process.env, DATABASE_PATH: join(dir, 'brief.db') }, encoding: 'utf8', timeout: 30_000,
    });
    const brief = run(true);
    expect(brief.status, 'every directory failed').toBe(1);
    expect(brief.stdout.split('\n').filter((line) => /directory-|directories|FAILED/.test(line))).toEqual([
      '3 directories could not be reached (offline?): bazaar ×2, mpp.dev; /status lists each error',
    ]);
    expect(run(false).stdout.match(/FAILED/g), 'npm run crawl keeps a line per directory').toHaveLength(3);
  }, 60_000);
});
