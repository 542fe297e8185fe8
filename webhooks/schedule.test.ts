import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../data/db.ts';
import { BACKGROUND_NICENESS } from '../processes.ts';
import { startDeliverySchedule } from './schedule.ts';

const dir = mkdtempSync(join(tmpdir(), 'psi-delivery-schedule-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pids of this process's children whose command line holds `text` (from /proc: Linux only, as CI is). */
function childrenRunning(text: string): number[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      // The parent's pid is the fourth field of /proc/<pid>/stat, after the command in parentheses.
      const parent = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      return parent === process.pid && command.includes(text) ? [Number(name)] : [];
    } catch {
      return []; // a process that ended while it was read
    }
  });
}

async function waitFor<T>(read: () => T | undefined, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the delivery schedule', () => {
  it('runs the delivery worker at the background niceness, so deliveries yield the CPU to the API, and stops it', async () => {
    const databasePath = join(dir, 'index.db');
    openDatabase(databasePath).close();
    const schedule = startDeliverySchedule({ env: { ...process.env, DATABASE_PATH: databasePath } });
    try {
      const worker = await waitFor(() => childrenRunning('scripts/deliver.ts')[0], 20_000);
      expect(getPriority(worker)).toBe(BACKGROUND_NICENESS);
      expect(getPriority(process.pid)).toBeLessThan(BACKGROUND_NICENESS);
    } finally {
      await schedule.stop();
    }
    expect(childrenRunning('scripts/deliver.ts')).toEqual([]);
  }, 30_000);
});
