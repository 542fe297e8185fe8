import { preparedOnce, type DB } from './db.ts';

/**
 * What the pages of one list query share (counts, kept orders), held per database connection and made anew after a
 * change: at once after a write through this connection, and at most COUNTS_MAX_LAG_MS after a commit by another (a
 * crawl child). The services list and the endpoint list keep theirs so.
 */

/**
 * How long counts may lag another process's commits. A probe pass commits several times a second, and counting
 * anew after each commit would put a count in front of most list requests during a pass; reads are cacheable for 60 s
 * anyway.
 */
const COUNTS_MAX_LAG_MS = 2_000;

const statements = preparedOnce({
  // data_version moves when another connection commits (a crawl child), total_changes at a write through this one.
  changes: `SELECT (SELECT data_version FROM pragma_data_version()) AS elsewhere, total_changes() AS here`,
});

interface Changes {
  elsewhere: number;
  here: number;
}

/**
 * A reader of one cache per connection, made by `make` and made again after a change as the rule above says.
 * @example const getCache = changeClearedCache((db) => ({ counts: new Map() })); getCache(db).counts;
 */
export function changeClearedCache<T>(make: (db: DB) => T): (db: DB) => T {
  const held = new WeakMap<DB, { changes: Changes; clearedAtMs: number; cache: T }>();
  return (db) => {
    const changes = statements(db).changes.get() as Changes;
    const nowMs = Date.now();
    const kept = held.get(db);
    if (kept && changes.here === kept.changes.here
      && (changes.elsewhere === kept.changes.elsewhere || nowMs - kept.clearedAtMs < COUNTS_MAX_LAG_MS)) return kept.cache;
    const cache = make(db);
    held.set(db, { changes, clearedAtMs: nowMs, cache });
    return cache;
  };
}

/**
 * Keeps `value` under `key` in a cache of at most `max` entries, emptied whole when full: what it holds is cheap to
 * find again, and a bound on entries is all it needs.
 * @example keepAtMost(counts, key, { total: 3 }, 2_000)
 */
export function keepAtMost<K, V>(held: Map<K, V>, key: K, value: V, max: number): V {
  if (held.size >= max) held.clear();
  held.set(key, value);
  return value;
}

/**
 * Values kept under keys while they number at most `maxEntries` and hold at most `maxRowids` rowids together (as the
 * caller counts them), emptied whole when a new one would pass either: kept rowids are cheap to read again, and the
 * bound on rowids is what bounds the server's memory, whatever the queries asked.
 * @example const orders = new BudgetedCache<Rowids>(2_000, 500_000); orders.keep(key, ids, ids.length);
 */
export class BudgetedCache<V> {
  private readonly held = new Map<string, V>();
  private rowids = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxRowids: number,
  ) {}

  get(key: string): V | undefined {
    return this.held.get(key);
  }

  keep(key: string, value: V, rowids: number): V {
    if (this.held.size >= this.maxEntries || this.rowids + rowids > this.maxRowids) {
      this.held.clear();
      this.rowids = 0;
    }
    this.held.set(key, value);
    this.rowids += rowids;
    return value;
  }
}

/** Rowids kept in memory: 4 bytes each while they fit (a SQLite rowid may be any 64-bit integer), else 8. */
export type Rowids = Uint32Array | Float64Array;

/** @example toRowids([3, 1]) // Uint32Array [3, 1], in the order given */
export const toRowids = (rowids: number[]): Rowids => (rowids.every(fits) ? Uint32Array.from(rowids) : Float64Array.from(rowids));

/** Whether a rowid fits in 4 bytes. */
const fits = (rowid: number) => rowid >= 0 && rowid <= 0xffff_ffff;

/** The most rowids one chunk of a RowidsBuilder holds: 256 KiB while they take 4 bytes. */
const CHUNK_ROWIDS = 65_536;
const FIRST_CHUNK_ROWIDS = 1_024;

/**
 * Rowids gathered one at a time, into typed arrays (4 bytes a rowid while they fit, then 8, as toRowids): a common
 * word's half a million matches never sit in a JS array, which takes 8 bytes a rowid in V8's heap, is copied as it
 * grows, and leaves the heap grown after. They fill chunks, doubling from 1,024 rowids up to CHUNK_ROWIDS, joined
 * once at the end: an array that doubles as it fills touches about twice its rowids' bytes in the copies it leaves
 * behind, and those stay resident until V8's next full collection (their bytes are outside its heap, so their
 * garbage does not hasten it), on top of the peak a common word's first ask already makes.
 * @example const gathered = new RowidsBuilder(); gathered.push(3); gathered.done() // Uint32Array [3]
 */
export class RowidsBuilder {
  private full: Rowids[] = [];
  private filling: Rowids = new Uint32Array(FIRST_CHUNK_ROWIDS);
  private filled = 0;
  private count = 0;

  push(rowid: number): void {
    if (this.filling instanceof Uint32Array && !fits(rowid)) this.widen();
    if (this.filled === this.filling.length) this.startChunk();
    this.filling[this.filled++] = rowid;
    this.count++;
  }

  get length(): number {
    return this.count;
  }

  /** The rowids in the order pushed, in an array of just their length. */
  done(): Rowids {
    const all = this.filling instanceof Float64Array ? new Float64Array(this.count) : new Uint32Array(this.count);
    let at = 0;
    for (const chunk of this.full) {
      all.set(chunk, at);
      at += chunk.length;
    }
    all.set(this.filling.subarray(0, this.filled), at);
    return all;
  }

  private startChunk(): void {
    this.full.push(this.filling);
    const length = Math.min(2 * this.filling.length, CHUNK_ROWIDS);
    this.filling = this.filling instanceof Float64Array ? new Float64Array(length) : new Uint32Array(length);
    this.filled = 0;
  }

  /** Every chunk in 8-byte rowids, once one does not fit in 4. */
  private widen(): void {
    this.full = this.full.map((chunk) => Float64Array.from(chunk));
    const wide = new Float64Array(this.filling.length);
    wide.set(this.filling);
    this.filling = wide;
  }
}

/** Whether ascending rowids hold one: a binary search. @example holds(Uint32Array.of(1, 3), 3) // true */
export function holds(rowids: Rowids, rowid: number): boolean {
  let low = 0;
  let high = rowids.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = rowids[middle]!;
    if (value === rowid) return true;
    if (value < rowid) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/**
 * Rowids as a set, from ascending ones: kept as they are, found by binary search, or as one bit a rowid below the
 * largest when that takes less memory (a common word's: `agent` is in every one of 100,000 services, 12.5 KB of bits
 * against 400 KB of rowids).
 * @example const set = RowidSet.of([2, 5]); set.has(5) // true; set.size // 2
 */
export class RowidSet {
  private constructor(
    private readonly rowids: Rowids | null,
    private readonly bits: Uint32Array | null,
    /** How many rowids it holds. */
    readonly size: number,
  ) {}

  static of(ascending: number[]): RowidSet {
    const largest = ascending.at(-1) ?? 0;
    const words = Math.floor(largest / 32) + 1;
    if (words >= ascending.length || !fits(largest)) return new RowidSet(toRowids(ascending), null, ascending.length);
    const bits = new Uint32Array(words);
    for (const rowid of ascending) bits[rowid >>> 5]! |= 1 << (rowid & 31);
    return new RowidSet(null, bits, ascending.length);
  }

  has(rowid: number): boolean {
    if (this.rowids !== null) return holds(this.rowids, rowid);
    return rowid >= 0 && rowid < this.bits!.length * 32 && (this.bits![rowid >>> 5]! & (1 << (rowid & 31))) !== 0;
  }

  /** Its rowids, ascending, that `keep` is true of. */
  filter(keep: (rowid: number) => boolean): number[] {
    const kept: number[] = [];
    if (this.rowids !== null) {
      for (const rowid of this.rowids) if (keep(rowid)) kept.push(rowid);
      return kept;
    }
    for (let word = 0; word < this.bits!.length; word++) {
      for (let bit = 0; bit < 32 && this.bits![word]! >>> bit !== 0; bit++) {
        const rowid = word * 32 + bit;
        if ((this.bits![word]! >>> bit) & 1 && keep(rowid)) kept.push(rowid);
      }
    }
    return kept;
  }

  /** The memory it takes, in 4-byte words (one for each rowid of a list). */
  get memoryWords(): number {
    return this.rowids !== null ? this.rowids.length * (this.rowids.BYTES_PER_ELEMENT / 4) : this.bits!.length;
  }
}
