import { describe, expect, it } from 'vitest';
import { BudgetedCache, RowidSet, RowidsBuilder, toRowids } from './list-cache.ts';

describe('RowidSet', () => {
  it('holds few rowids as a list and many as bits, and answers the same either way', () => {
    const sparse = [3, 70, 100_000];
    const dense = Array.from({ length: 5_000 }, (_, k) => k * 3 + 1);
    for (const ascending of [sparse, dense, []]) {
      const set = RowidSet.of(ascending);
      expect(set.size).toBe(ascending.length);
      expect(set.filter(() => true)).toEqual(ascending);
      for (const rowid of ascending) expect(set.has(rowid)).toBe(true);
      for (const absent of [0, 2, 4, 99_999, 100_001, -1, 2 ** 33]) if (!ascending.includes(absent)) expect(set.has(absent)).toBe(false);
    }
    // 5,000 rowids below 15,001: 469 words of bits against 5,000 of rowids.
    expect(RowidSet.of(dense).memoryWords).toBe(469);
    expect(RowidSet.of(sparse).memoryWords).toBe(3);
  });

  it('filters by a test, ascending, including the 32nd bit of a word', () => {
    const set = RowidSet.of(Array.from({ length: 64 }, (_, k) => k));
    expect(set.filter((rowid) => rowid % 31 === 0)).toEqual([0, 31, 62]);
    expect(set.filter((rowid) => rowid >= 63)).toEqual([63]);
  });
});

describe('RowidsBuilder', () => {
  it('gives the rowids pushed, in order, as toRowids would: 4 bytes each while they fit, 8 after one does not', () => {
    const pushed = Array.from({ length: 5_000 }, (_, k) => (k * 7_919) % 100_003);
    const gathered = new RowidsBuilder();
    for (const rowid of pushed) gathered.push(rowid);
    expect(gathered.length).toBe(pushed.length);
    const done = gathered.done();
    expect(done).toBeInstanceOf(Uint32Array);
    expect(done).toEqual(toRowids(pushed));

    const wide = [...pushed.slice(0, 1_500), 2 ** 40, ...pushed.slice(1_500, 3_000)];
    const widened = new RowidsBuilder();
    for (const rowid of wide) widened.push(rowid);
    expect(widened.done()).toBeInstanceOf(Float64Array);
    expect(Array.from(widened.done())).toEqual(wide);
    expect(new RowidsBuilder().done()).toEqual(new Uint32Array(0));
  });

  it('joins its chunks in order past a chunk\'s most (65,536), and widens those gathered before a rowid that does not fit', () => {
    const expectGathered = (rowids: number[], kind: typeof Uint32Array | typeof Float64Array) => {
      const gathered = new RowidsBuilder();
      for (const rowid of rowids) gathered.push(rowid);
      const done = gathered.done();
      expect(done).toBeInstanceOf(kind);
      expect(done.length).toBe(rowids.length);
      expect(done.findIndex((rowid, k) => rowid !== rowids[k])).toBe(-1);
    };
    const pushed = Array.from({ length: 200_000 }, (_, k) => (k * 7_919) % 1_000_003);
    expectGathered(pushed, Uint32Array);
    expectGathered([...pushed.slice(0, 150_000), 2 ** 40, ...pushed.slice(150_000)], Float64Array);
  });
});

describe('BudgetedCache', () => {
  it('keeps values until a new one would pass its bound on entries or on rowids, then starts again from that one', () => {
    const cache = new BudgetedCache<string>(3, 100);
    cache.keep('a', 'A', 40);
    cache.keep('b', 'B', 50);
    expect([cache.get('a'), cache.get('b')]).toEqual(['A', 'B']);
    // 40 + 50 + 20 rowids pass 100: everything kept goes, the new one stays.
    expect(cache.keep('c', 'C', 20)).toBe('C');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, undefined, 'C']);
    cache.keep('d', 'D', 0);
    cache.keep('e', 'E', 0);
    // Three entries held: a fourth passes the bound on entries.
    cache.keep('f', 'F', 0);
    expect(['c', 'd', 'e', 'f'].map((key) => cache.get(key))).toEqual([undefined, undefined, undefined, 'F']);
  });
});
