import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from './db.ts';
import { AnswerRing, createDetailCache, FRESHNESS_CHECK_MS } from './detail-cache.ts';
import { recordProbe } from './probes.ts';
import { readServiceDetail } from './service-detail.ts';
import { upsertServices } from './services.ts';
import { makeService, openTestDatabase } from './testing.ts';

const NOW = '2026-11-01T00:00:00.000Z';
const afterFreshnessCheck = () => new Promise((resolve) => setTimeout(resolve, FRESHNESS_CHECK_MS + 5));

function probe(id: string, reason: string) {
  return { service_id: id, probed_at: NOW, ok: false, status_code: 404, method: 'GET', latency_ms: 3, reason, detected_rails: [] };
}

function bytesOf(key: string, length: number): Buffer {
  return Buffer.alloc(length, key);
}

describe('AnswerRing', () => {
  it('gives back what it holds, byte for byte, and forgets on request', () => {
    const ring = new AnswerRing(1024, 100);
    ring.put('a', bytesOf('a', 100), 'da');
    ring.put('b', bytesOf('b', 50), 'db');
    expect(ring.get('a')).toEqual({ bytes: bytesOf('a', 100), digest: 'da' });
    expect(ring.get('b')).toEqual({ bytes: bytesOf('b', 50), digest: 'db' });
    ring.forget('a');
    expect(ring.get('a')).toBeUndefined();
    expect(ring.get('b')?.digest).toBe('db');
    expect(ring.get('never')).toBeUndefined();
  });

  it('evicts exactly the oldest answers a new one is written over, around the end of the ring', () => {
    const ring = new AnswerRing(240, 100);
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (const key of keys) ring.put(key, bytesOf(key, 30), key);
    expect(keys.filter((key) => ring.get(key) === undefined)).toEqual([]);
    // The ring is full: i goes to the start, over a; j (15 bytes) over the start of b; k over the rest of b and c.
    ring.put('i', bytesOf('i', 30), 'i');
    expect(keys.filter((key) => ring.get(key) === undefined)).toEqual(['a']);
    ring.put('j', bytesOf('j', 15), 'j');
    expect(keys.filter((key) => ring.get(key) === undefined)).toEqual(['a', 'b']);
    ring.put('k', bytesOf('k', 30), 'k');
    expect(keys.filter((key) => ring.get(key) === undefined)).toEqual(['a', 'b', 'c']);
    for (const key of ['d', 'e', 'f', 'g', 'h']) expect(ring.get(key)?.bytes).toEqual(bytesOf(key, 30));
    expect([ring.get('i')?.bytes, ring.get('j')?.bytes, ring.get('k')?.bytes]).toEqual([bytesOf('i', 30), bytesOf('j', 15), bytesOf('k', 30)]);
  });

  it('replaces what a key held, and does not hold bytes larger than an eighth of the ring', () => {
    const ring = new AnswerRing(800, 100);
    ring.put('a', bytesOf('x', 40), 'old');
    ring.put('a', bytesOf('y', 60), 'new');
    expect(ring.get('a')).toEqual({ bytes: bytesOf('y', 60), digest: 'new' });
    ring.put('a', bytesOf('z', 101), 'huge');
    expect(ring.get('a')).toBeUndefined();
  });

  it('keeps a key it replaced when the ring comes round to the bytes the key held before', () => {
    const ring = new AnswerRing(240, 100);
    ring.put('a', bytesOf('a', 30), 'old');
    ring.put('b', bytesOf('b', 30), 'b');
    ring.put('a', bytesOf('A', 30), 'new');
    for (const key of ['c', 'd', 'e', 'f', 'g']) ring.put(key, bytesOf(key, 30), key);
    ring.put('h', bytesOf('h', 30), 'h'); // over a's first bytes, at the start
    expect(ring.get('a')).toEqual({ bytes: bytesOf('A', 30), digest: 'new' });
    expect(ring.get('b')?.digest).toBe('b');
  });

  it('holds at most one answer per 512 bytes of ring unless told otherwise, and nothing for empty bytes', () => {
    const ring = new AnswerRing(2048);
    for (const key of ['a', 'b', 'c', 'd', 'e']) ring.put(key, bytesOf(key, 10), key);
    expect(ring.size).toBe(4);
    expect(ring.get('a')).toBeUndefined();
    expect(ring.get('e')?.bytes).toEqual(bytesOf('e', 10));
    ring.put('empty', Buffer.alloc(0), 'd');
    expect(ring.get('empty')).toBeUndefined();
    ring.clear();
    expect([ring.size, ring.get('e')]).toEqual([0, undefined]);
  });

  it('never answers one key with bytes written for another, through many laps', () => {
    const ring = new AnswerRing(4096, 1000);
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const written = new Map<string, Buffer>();
    for (let i = 0; i < 5000; i++) {
      const key = `k${Math.floor(random() * 300)}`;
      const bytes = Buffer.from(`${key}:${i}:`.repeat(1 + Math.floor(random() * 30)));
      if (random() < 0.1) ring.forget(key);
      else {
        ring.put(key, bytes, String(i));
        written.set(key, bytes);
      }
      const probe = `k${Math.floor(random() * 300)}`;
      const answer = ring.get(probe);
      if (answer) expect(answer.bytes).toEqual(written.get(probe));
    }
    let held = 0;
    for (const [key, bytes] of written) {
      const answer = ring.get(key);
      if (answer) {
        held++;
        expect(answer.bytes).toEqual(bytes);
      }
    }
    expect(held).toBeGreaterThan(10);
    expect(ring.size).toBe(held);
  });
});

/** Every answer read from SQLite is held, so what a test reads once it finds in memory next. */
const HOLD_EVERY_ANSWER = { admittedShare: 1 };

describe('createDetailCache', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function servedFile(): { path: string; served: DB } {
    const dir = mkdtempSync(join(tmpdir(), 'psi-detail-cache-'));
    dirs.push(dir);
    const path = join(dir, 'index.db');
    return { path, served: openDatabase(path) };
  }

  it('answers the stored detail as UTF-8 bytes with its digest, and null for no service', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test', name: 'Café ☕ API' })], NOW);
    const details = createDetailCache(db, HOLD_EVERY_ANSWER);
    const stored = readServiceDetail(db, 'a-test')!;
    for (let i = 0; i < 2; i++) {
      const answer = details.read('a-test')!;
      expect(answer.body.toString('utf8')).toBe(stored.body);
      expect(answer.digest).toBe(stored.digest);
    }
    expect(details.read('no-such-test')).toBeNull();
  });

  it('gives back every answer byte for byte, whether its service was written before the cache sampled its dictionary or after', () => {
    const db = openTestDatabase();
    const named = (from: number, to: number) => Array.from({ length: to - from }, (_, k) =>
      makeService({ id: `s${from + k}-test`, name: `Service ${from + k} ☕`, description: 'x'.repeat((from + k) * 97) }));
    upsertServices(db, named(0, 6), NOW);
    const details = createDetailCache(db, HOLD_EVERY_ANSWER);
    // The sampled services change after the dictionary was read from them: what the cache holds must not.
    upsertServices(db, [...named(0, 6).map((service) => ({ ...service, name: `${service.name} renamed` })), ...named(6, 12)], NOW);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 12; i++) {
        const stored = readServiceDetail(db, `s${i}-test`)!;
        expect(details.read(`s${i}-test`)!.body.toString('utf8')).toBe(stored.body);
      }
    }
  });

  it('answers from memory what it holds: a row changed without a new revision is not read again', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], NOW);
    const details = createDetailCache(db, HOLD_EVERY_ANSWER);
    const first = details.read('a-test')!.body.toString();
    db.prepare(`UPDATE service_details SET body = '{}' WHERE service_id = 'a-test'`).run();
    expect(details.read('a-test')!.body.toString()).toBe(first);
    expect(createDetailCache(db, HOLD_EVERY_ANSWER).read('a-test')!.body.toString()).toBe('{}');
  });

  it('forgets a service rewritten in this process at once', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' }), makeService({ id: 'b-test' })], NOW);
    const details = createDetailCache(db, HOLD_EVERY_ANSWER);
    details.read('a-test');
    const b = details.read('b-test')!.body.toString();
    recordProbe(db, probe('a-test', 'answered 404'));
    expect(JSON.parse(details.read('a-test')!.body.toString())).toMatchObject({ live: false, probes: [{ reason: 'answered 404' }] });
    expect(details.read('b-test')!.body.toString()).toBe(b);
  });

  it('does not forget again what it re-read after a rewrite it already handled', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' }), makeService({ id: 'b-test' })], NOW);
    const details = createDetailCache(db, HOLD_EVERY_ANSWER);
    details.read('a-test');
    recordProbe(db, probe('a-test', 'answered 404'));
    const reread = details.read('a-test')!.body.toString();
    db.prepare(`UPDATE service_details SET body = '{}' WHERE service_id = 'a-test'`).run();
    recordProbe(db, probe('b-test', 'answered 404'));
    expect(details.read('a-test')!.body.toString()).toBe(reread);
  });

  it('forgets everything at once after more rewrites than it would list one by one', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], NOW);
    const details = createDetailCache(db, HOLD_EVERY_ANSWER);
    details.read('a-test');
    db.prepare(`UPDATE service_details SET body = '{}' WHERE service_id = 'a-test'`).run();
    upsertServices(db, Array.from({ length: 1100 }, (_, i) => makeService({ id: `s${i}-test` })), NOW);
    expect(details.read('a-test')!.body.toString()).toBe('{}');
    expect(JSON.parse(details.read('s7-test')!.body.toString()).id).toBe('s7-test');
  });

  it('forgets a service another process rewrote once the check is due, and only that one', async () => {
    const { path, served } = servedFile();
    upsertServices(served, [makeService({ id: 'a-test' }), makeService({ id: 'b-test' })], NOW);
    const details = createDetailCache(served, HOLD_EVERY_ANSWER);
    expect(JSON.parse(details.read('a-test')!.body.toString()).live).toBeNull();
    details.read('b-test');
    const crawler = openDatabase(path);
    recordProbe(crawler, probe('a-test', 'answered 404'));
    served.prepare(`UPDATE service_details SET body = '{}' WHERE service_id = 'b-test'`).run();
    crawler.close();
    await afterFreshnessCheck();
    expect(JSON.parse(details.read('a-test')!.body.toString())).toMatchObject({ live: false, probes: [{ reason: 'answered 404' }] });
    expect(JSON.parse(details.read('b-test')!.body.toString()).id).toBe('b-test');
    served.close();
  });

  it('still hits under a walk over more services than it holds, taking in one answer in eight', () => {
    const db = openTestDatabase();
    const ids = Array.from({ length: 80 }, (_, i) => `s${i}-test`);
    upsertServices(db, ids.map((id) => makeService({ id })), NOW);
    // Room for 40 answers (one a 512 B of ring), a walk over 80: each answer comes round again after 79 others.
    const heldAfterWalks = (admittedShare: number) => {
      let seed = 7;
      const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
      const details = createDetailCache(db, { capacityBytes: 40 * 512, admittedShare, random });
      for (let walk = 0; walk < 40; walk++) for (const id of ids) details.read(id);
      const bodies = new Map(ids.map((id) => [id, details.read(id)!.body.toString()]));
      // Rewritten without a new revision: what the cache answers unchanged, it answered from memory.
      db.prepare(`UPDATE service_details SET body = '{}'`).run();
      const held = ids.filter((id) => details.read(id)!.body.toString() === bodies.get(id)).length;
      db.prepare(`DELETE FROM service_details`).run();
      upsertServices(db, ids.map((id) => makeService({ id, name: `Renamed ${id}` })), NOW);
      return held;
    };
    expect(heldAfterWalks(1)).toBe(0);
    expect(heldAfterWalks(1 / 8)).toBeGreaterThanOrEqual(28);
  });
});
