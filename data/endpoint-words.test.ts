import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EndpointFilters } from '../domain/endpoint-query.ts';
import { openDatabase, type DB } from './db.ts';
import { listEndpoints } from './endpoint-list.ts';
import { candidatesOf, newWordCache } from './endpoint-words.ts';
import { ENDPOINT_JOINS, ENDPOINT_TEXT } from './endpoints.ts';
import { upsertServices } from './services.ts';
import { makeService } from './testing.ts';
import type { EndpointInput } from './types.ts';

/*
 * A search of several words finds its candidates from the full-text indexes' word sets (data/endpoint-words.ts), on
 * a real SQLite file: its counts and every page equal a plain scan over the joins testing each word on the whole
 * text, whether the words' sets are kept from an earlier search or read now, beside other filters, and after a change.
 */

const NOW = '2026-11-26T12:00:00.000Z';
let dir: string;
let db: DB;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'psi-endpoint-words-'));
  db = openDatabase(join(dir, 'index.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOPICS = ['Volcano', 'weather', 'Café', 'chess'];
const COMPANIONS = ['reliable', 'fast', 'CHEAP', 'bulk'];

/** Services whose words sit in the service's name or description, the endpoint's description, URL or tags, in any case. */
function fill(on: DB, count: number, variant = 0): void {
  upsertServices(on, Array.from({ length: count }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length]!;
    const companion = COMPANIONS[(i + variant) % COMPANIONS.length]!;
    const endpoints: EndpointInput[] = Array.from({ length: 1 + (i % 3) }, (_, k) => ({
      url: `https://s${i}.test/v1/${k === 1 ? topic.toLowerCase() : 'x'}/${k}`, method: k % 2 === 0 ? 'GET' : 'POST',
      description: k === 2 ? `${COMPANIONS[(i + k) % COMPANIONS.length]} ${topic} feed` : null,
      price: { usd: [0.01, 0.002, null, 0.05][(i + k) % 4]!, display: null },
      rails: ['x402'], chains: ['base'], assets: ['USDC'], ...(k === 0 && i % 5 === 0 ? { tags: ['fastlane'] } : {}),
    }));
    return makeService({
      id: `s${String(i).padStart(2, '0')}-test`,
      name: i % 2 === 0 ? `${topic} Service ${i}` : `Service ${i}`,
      description: `${companion} ${i % 4 === 1 ? topic : 'data'} api`,
      endpoint: endpoints[0]!.url,
      endpoints,
    });
  }), NOW);
}

/** The plain scan: every endpoint whose whole text holds every word, with the filters, in price order. */
function scan(on: DB, words: string[], filters: EndpointFilters = {}): { ids: string[]; total: number } {
  const where = words.map(() => `instr(${ENDPOINT_TEXT}, ?) > 0`);
  const params: unknown[] = [...words];
  if (filters.max_price_usd !== undefined) { where.push('e.min_usd <= ?'); params.push(filters.max_price_usd); }
  if (filters.service !== undefined) { where.push('e.service_id = ?'); params.push(filters.service); }
  const ids = on.prepare(`SELECT e.id FROM service_endpoints e ${ENDPOINT_JOINS} WHERE ${where.join(' AND ')}
    ORDER BY e.min_usd IS NULL, e.min_usd, e.id`).pluck().all(...params) as string[];
  return { ids, total: ids.length };
}

/** Every page of a search in price order, 4 at a time, and the counts each page said. */
function pages(on: DB, filters: EndpointFilters): { ids: string[]; totals: number[] } {
  const ids: string[] = [];
  const totals: number[] = [];
  for (let offset = 0; ; offset += 4) {
    const page = listEndpoints(on, { filters, page: { limit: 4, offset }, sort: 'price' });
    ids.push(...page.endpoints.map((e) => e.id));
    totals.push(page.counts.total);
    if (!page.more) return { ids, totals };
  }
}

const SEARCHES = [
  'volcano reliable', 'reliable volcano', 'weather fast', 'fast weather', 'café cheap', 'CAFÉ bulk', 'chess fast feed',
  'weather fastlane', 'volcano data api', 'chess "service 1"', 'weather re', 'nosuch volcano', 'bulk cheap',
];

describe('a search of several words, narrowed by the words\' sets', () => {
  it('answers the counts and every page of a plain scan, with word sets read now and kept', () => {
    fill(db, 40);
    for (const round of ['read now', 'kept']) {
      for (const q of SEARCHES) {
        const words = q.toLowerCase().match(/"[^"]*"|\S+/g)!.map((word) => word.replaceAll('"', ''));
        const expected = scan(db, words);
        const got = pages(db, { q });
        expect([round, q, got.ids]).toEqual([round, q, expected.ids]);
        expect(new Set(got.totals)).toEqual(new Set([expected.total]));
      }
    }
    expect(scan(db, ['volcano', 'reliable']).total).toBeGreaterThan(0);
    expect(scan(db, ['café', 'cheap']).total).toBeGreaterThan(0);
  });

  it('answers the same beside other filters, and under relevance the same matches', () => {
    fill(db, 40);
    for (const q of ['weather fast', 'volcano reliable', 'chess cheap']) {
      const words = q.split(' ');
      for (const filters of [{ max_price_usd: 0.01 }, { service: 's02-test' }, { service: 's05-test', max_price_usd: 0.05 }]) {
        expect([q, filters, pages(db, { q, ...filters }).ids]).toEqual([q, filters, scan(db, words, filters).ids]);
      }
      const relevant = listEndpoints(db, { filters: { q }, page: { limit: 500, offset: 0 }, sort: 'relevance' });
      expect(relevant.endpoints.map((e) => e.id).sort()).toEqual([...scan(db, words).ids].sort());
    }
  });

  it('finds a superset of the matches from the indexes alone, before any row is read', () => {
    fill(db, 40);
    const rowidsOf = (ids: string[]) => db.prepare(`SELECT search_rowid FROM service_endpoints WHERE id IN (SELECT value FROM json_each(?))`)
      .pluck().all(JSON.stringify(ids)) as number[];
    const candidates = candidatesOf(db, newWordCache(), 'volcano', ['fast']).rowids;
    expect(candidates).toEqual(expect.arrayContaining(rowidsOf(scan(db, ['volcano', 'fast']).ids)));
    expect(candidates.length).toBeLessThan(rowidsOf(scan(db, ['volcano']).ids).length);
  });

  it('answers a change at once: words kept before it are read again', () => {
    fill(db, 40);
    const before = pages(db, { q: 'volcano reliable' });
    expect(before.ids).toEqual(scan(db, ['volcano', 'reliable']).ids);
    fill(db, 40, 1);
    const after = pages(db, { q: 'volcano reliable' });
    expect(after.ids).toEqual(scan(db, ['volcano', 'reliable']).ids);
    expect(after.ids).not.toEqual(before.ids);
  });
});
