import { compressSync, uncompressSync } from 'lz4-napi';
import type { ServiceDetail } from '../domain/schemas.ts';
import type { DB } from './db.ts';
import { countDetailWrites, getLatestDetailRevision, listDetailsChangedSince, listNewestDetailBodies, readServiceDetail } from './service-detail.ts';

/*
 * Detail answers held in memory, so a lookup of a service asked for recently costs no SQLite read (the read is most
 * of a lookup's time: BENCHMARKS.md). They are kept LZ4-compressed in one ring of bytes allocated once, which bounds
 * the memory whatever the traffic, and evicts without leaving garbage for V8 to collect: about 13,000 answers fit in
 * the default 11 MB. An answer read from SQLite is held one time in ADMITTED_SHARE: a client walking more services
 * than the ring holds would otherwise push out each answer before it is asked again (the ring evicts the oldest
 * written), and no lookup would hit. An answer is forgotten when its service is rewritten, by this process or any
 * other: the cache asks SQLite which details were rewritten since the last revision it saw
 * (data/service-detail.ts); at once after a write of this process, at most FRESHNESS_CHECK_MS after another's.
 */

/**
 * How often, at most, the cache asks SQLite what another process rewrote (asking costs more than a lookup
 * from memory): an answer is at most this much older than the database, where clients may cache it for 60 s.
 */
export const FRESHNESS_CHECK_MS = 10;

/**
 * When more details than this were rewritten since the last check (a discovery pass rewrites every service in one
 * commit), the cache forgets everything at once instead of listing them all while a request waits.
 */
const FORGET_ONE_BY_ONE = 1024;

/**
 * The ring's size: about 13,000 answers of about 870 bytes compressed (with every listed endpoint record in the
 * answer: 6.2 KB raw on average), an eighth of the 100,000-service benchmark. Every megabyte counts toward the API's
 * RSS target (150 MB).
 */
export const DETAIL_CACHE_BYTES = 11 * 1024 * 1024;

/**
 * The share of answers read from SQLite that the ring takes in. Under a walk over more services than it holds, a ring
 * that took in every answer would hit none (each is evicted before it comes round again); taking in one in eight,
 * it keeps nearly as many as it can hold of any set asked over and over, and a service asked often gets in after a
 * few asks. A miss that is not held costs no compression either.
 */
export const ADMITTED_SHARE = 1 / 8;

/**
 * The start of every compressed answer: LZ4 can refer back into it, so the keys and common values an answer
 * repeats cost a few bytes each instead of their text (about 1,000 bytes an answer without it, 700 with it).
 */
const DICTIONARY = Buffer.from(JSON.stringify({
  id: 'api-example-com', name: 'Example API', category: null, description: 'Paid per call for AI agents.',
  rails: ['x402', 'mpp'], chains: ['base', 'solana', 'tempo'], assets: ['USDC'],
  price: { display: '$0.01 / call', usd: 0.01 }, endpoint: 'https://api.example.com/v1/', facilitator: 'https://',
  live: true, last_seen_live: '2026-01-01T00:00:00.000Z', first_indexed: '2026-01-01T00:00:00.000Z',
  sources: ['bazaar', 'mpp', 'open402', 'submission'], uptime_30d: 0.95, checks_30d: 120, median_latency_ms_30d: 100,
  flags: [], owner_verified: false, reason: null,
  price_range: { min_usd: 0.01, max_usd: 0.01 }, endpoint_count: 1, source_urls: [{ source: 'bazaar', url: 'https://' }],
  probes: [
    { probed_at: '2026-01-01T00:00:00.000Z', ok: true, status_code: 402, method: 'GET', latency_ms: 100, reason: null, detected_rails: ['x402'] },
    { probed_at: '2026-01-01T00:00:00.000Z', ok: false, status_code: 500, method: 'POST', latency_ms: 100, reason: 'server error (HTTP 500)', detected_rails: [] },
    { probed_at: '2026-01-01T00:00:00.000Z', ok: false, status_code: null, method: 'POST', latency_ms: null, reason: 'timed out after 10 s', detected_rails: [] },
  ],
  uptime: {
    '24h': { checks: 4, detected: 4, ratio: 1 },
    '7d': { checks: 28, detected: 27, ratio: 0.9642857142857143 },
    '30d': { checks: 120, detected: 114, ratio: 0.95 },
  },
  endpoints: [
    {
      id: 'api-example-com.get.v1-00000000', service_id: 'api-example-com', method: 'GET', url: 'https://api.example.com/v1/',
      route_template: null, description: null, docs_url: null, price: { display: '$0.01 / call', usd: 0.01 },
      offers: [{
        rail: 'x402', scheme: 'exact', method: null, network: 'eip155:8453', chain: 'base',
        asset: { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }, amount: { atomic: '10000', decimal: '0.01' },
        usd: 0.01, unit: 'call', is_maximum: false, pay_to: '0x', facilitator: null, seen_in: 'challenge',
      }],
      input: { type: 'http', method: 'GET', query: { type: 'object', properties: {}, required: [] }, path: null, headers: null,
        body_type: null, body: null, tool: null, example: null },
      output: null, tags: [], sources: ['bazaar'], live: true,
      last_check: { at: '2026-01-01T00:00:00.000Z', ok: true, status_code: 402, latency_ms: 100, reason: null },
    },
  ],
  owner: null,
} satisfies ServiceDetail));

/**
 * Besides the fixed part, the dictionary holds some answers the database holds (the newest written), up to this
 * many bytes: answers share more with each other than with any fixed text (their endpoints' offers, URLs and checks),
 * so each is compressed a fifth smaller with four of them, a tenth smaller again with ten. LZ4 reads at most 64 KiB
 * of dictionary, the fixed part (4 KiB) included.
 */
const SAMPLED_ANSWERS = 10;
const SAMPLED_BYTES = 56 * 1024;

/** The dictionary of one cache: sampled answers, then the fixed part (read once: every held answer depends on it). */
function toDictionary(db: DB): Buffer {
  const sampled: Buffer[] = [];
  let bytes = 0;
  for (const body of listNewestDetailBodies(db, SAMPLED_ANSWERS)) {
    const answer = Buffer.from(body);
    if (bytes + answer.length > SAMPLED_BYTES) break;
    sampled.push(answer);
    bytes += answer.length;
  }
  return Buffer.concat([...sampled, DICTIONARY]);
}

/** A detail answer as UTF-8 JSON bytes, with its digest (data/digest.ts). */
export interface CachedDetail {
  body: Buffer;
  digest: string;
}

export interface DetailCache {
  /** The detail answer of a service (`id` lower-cased), from memory when held, else from SQLite; null when none. */
  read(id: string): CachedDetail | null;
}

export interface DetailCacheOptions {
  capacityBytes?: number;
  /** The share of answers read from SQLite that are held (ADMITTED_SHARE), drawn with `random`. */
  admittedShare?: number;
  random?: () => number;
}

/**
 * @example const details = createDetailCache(db); details.read('api-example-com')?.body; // <Buffer 7b 22 ...>
 */
export function createDetailCache(db: DB, options: DetailCacheOptions = {}): DetailCache {
  const { capacityBytes = DETAIL_CACHE_BYTES, admittedShare = ADMITTED_SHARE, random = Math.random } = options;
  const ring = new AnswerRing(capacityBytes);
  const dictionary = toDictionary(db);
  const freshness = { revision: getLatestDetailRevision(db), writes: countDetailWrites(db), checkedAt: performance.now() };
  const forgetRewritten = () => {
    const changed = listDetailsChangedSince(db, freshness.revision, FORGET_ONE_BY_ONE + 1);
    if (changed.length > FORGET_ONE_BY_ONE) {
      ring.clear();
      freshness.revision = getLatestDetailRevision(db);
    } else {
      for (const { service_id, revision } of changed) {
        ring.forget(service_id);
        freshness.revision = revision;
      }
    }
    freshness.writes = countDetailWrites(db);
    freshness.checkedAt = performance.now();
  };

  return {
    read(id) {
      if (freshness.writes !== countDetailWrites(db) || performance.now() - freshness.checkedAt >= FRESHNESS_CHECK_MS) {
        forgetRewritten();
      }
      const held = ring.get(id);
      if (held) return { body: uncompressSync(held.bytes, dictionary), digest: held.digest };
      const stored = readServiceDetail(db, id);
      if (!stored) return null;
      const body = Buffer.from(stored.body);
      if (random() < admittedShare) ring.put(ownCopy(id), compressSync(body, dictionary), stored.digest);
      return { body, digest: stored.digest };
    },
  };
}

/**
 * A string of its own with the same text: an id sliced from a request's path keeps the whole path alive for as long
 * as the ring holds it as a key.
 */
const ownCopy = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

interface Slot {
  key: string;
  offset: number;
  length: number;
  digest: string;
}

/**
 * Byte strings under keys, written one after another around a fixed buffer; writing over the oldest evicts them.
 * Besides its buffer, each held entry costs about 200 B of bookkeeping, so by default it holds at most one per 512 B
 * of buffer.
 * @example const ring = new AnswerRing(1024); ring.put('a', bytes, 'digest'); ring.get('a')?.bytes;
 */
export class AnswerRing {
  readonly #buffer: Buffer;
  readonly #maxEntries: number;
  readonly #slots = new Map<string, Slot>();
  /** Every slot written and not yet overwritten, oldest first from `#front` (a forgotten one stays until then). */
  #order: Slot[] = [];
  #front = 0;
  #head = 0;

  constructor(capacityBytes: number, maxEntries = Math.max(1, Math.floor(capacityBytes / 512))) {
    this.#buffer = Buffer.allocUnsafe(capacityBytes);
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#slots.size;
  }

  get(key: string): { bytes: Buffer; digest: string } | undefined {
    const slot = this.#slots.get(key);
    return slot && { bytes: this.#buffer.subarray(slot.offset, slot.offset + slot.length), digest: slot.digest };
  }

  /** Holds `bytes` under `key` (replacing what it held); empty bytes or more than an eighth of the ring are not held. */
  put(key: string, bytes: Uint8Array, digest: string): void {
    this.forget(key);
    if (bytes.length === 0 || bytes.length > this.#buffer.length / 8) return;
    if (this.#head + bytes.length > this.#buffer.length) {
      this.#evictWhile((slot) => slot.offset >= this.#head);
      this.#head = 0;
    }
    const end = this.#head + bytes.length;
    this.#evictWhile((slot) => slot.offset >= this.#head && slot.offset < end);
    this.#evictWhile(() => this.#slots.size >= this.#maxEntries);
    const slot = { key, offset: this.#head, length: bytes.length, digest };
    this.#buffer.set(bytes, slot.offset);
    this.#head = end;
    this.#slots.set(key, slot);
    this.#order.push(slot);
  }

  forget(key: string): void {
    this.#slots.delete(key);
  }

  clear(): void {
    this.#slots.clear();
    this.#order = [];
    this.#front = 0;
    this.#head = 0;
  }

  /** Evicts the oldest slots while `evict` holds for the oldest. */
  #evictWhile(evict: (oldest: Slot) => boolean): void {
    while (this.#front < this.#order.length && evict(this.#order[this.#front]!)) {
      const oldest = this.#order[this.#front++]!;
      if (this.#slots.get(oldest.key) === oldest) this.#slots.delete(oldest.key);
    }
    // Drop the evicted part of the queue now and then (shifting one at a time costs as much as the queue is long).
    if (this.#front > 1024 && this.#front * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#front);
      this.#front = 0;
    }
  }
}
