import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forEachConcurrent } from './concurrent.ts';
import { withLock } from './lock.ts';

const dir = mkdtempSync(join(tmpdir(), 'psi-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lock.ts and concurrent.ts', () => {
  it('runs holders of one lock one at a time and lets go after a failure', async () => {
    const path = join(dir, 'a', 'one.lock');
    const order: string[] = [];
    const hold = (name: string) => withLock(path, async () => {
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      order.push(`${name} out`);
    });
    await Promise.all([hold('first'), hold('second')]);
    expect(order).toEqual(['first in', 'first out', 'second in', 'second out']);
    await expect(withLock(path, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await withLock(path, async () => 'free again')).toBe('free again');
  });

  it('takes over a lock whose owner died, and waits for a live one until the time limit', async () => {
    const dead = join(dir, 'dead.lock');
    mkdirSync(dead);
    writeFileSync(join(dead, 'owner'), '999999999');
    expect(await withLock(dead, async () => 'taken over')).toBe('taken over');
    const live = join(dir, 'live.lock');
    mkdirSync(live);
    writeFileSync(join(live, 'owner'), String(process.ppid));
    await expect(withLock(live, async () => 'never', 250)).rejects.toThrow(/timed out/);
  });

  it('keeps at most the limit in flight and reports the first failure', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await forEachConcurrent([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5 * (8 - n)));
      running -= 1;
      done.push(n);
    });
    expect(most).toBe(3);
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await expect(forEachConcurrent([1, 2, 3], 2, async (n) => { if (n === 2) throw new Error(`failed ${n}`); })).rejects.toThrow('failed 2');
  });
});
