import { describe, expect, it } from 'vitest';
import { loadOnce } from './load-once.ts';

describe('loadOnce', () => {
  it('loads on the first call only, giving every caller the same value', async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ n: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([load(), load()]);
    expect(await load()).toBe(a);
    expect([a, b, loads]).toEqual([{ n: 1 }, { n: 1 }, 1]);
  });

  it('loads again after a failure, and keeps what loads then', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      if (++loads === 1) throw new Error('no module');
      return loads;
    });
    await expect(load()).rejects.toThrow('no module');
    expect(await load()).toBe(2);
    expect(await load()).toBe(2);
    expect(loads).toBe(2);
  });
});
