import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticProbes, syntheticService } from '../scripts/bench/synthetic.ts';
import { openDatabase, type DB } from './db.ts';
import { ENDPOINT_TEXT } from './endpoints.ts';
import { recordProbes } from './probes.ts';
import { upsertServices } from './services.ts';
import { toWords } from './search.ts';
import { listDiscoveredResources, type DiscoveryFilters } from './x402-discovery.ts';

/*
 * The index as an x402 Bazaar on a real SQLite file of 1,500 synthetic services (the benchmarks' generator: the live
 * ones paid with x402 alone on Base state a challenge): whichever way a search is walked (a rare word's endpoints by
 * the full-text indexes, or every listed endpoint), it answers what each endpoint's whole text says, page by page,
 * with the total of every match; and it follows a change at once.
 */

const NOW = '2026-11-26T12:00:00.000Z';
const dir = mkdtempSync(join(tmpdir(), 'psi-discovery-'));
const services = Array.from({ length: 1_500 }, (_, i) => syntheticService(i));
let db: DB;

beforeAll(() => {
  db = openDatabase(join(dir, 'index.db'));
  upsertServices(db, services, NOW);
  recordProbes(db, services.flatMap((service, i) => syntheticProbes(i, service).reverse()));
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The listed endpoints holding every word, by testing each one's whole text as computed from its rows. */
function expected(query: string): string[] {
  const words = toWords(query);
  return db.prepare(`SELECT e.id FROM service_endpoints e JOIN services s ON s.id = e.service_id
    JOIN endpoint_challenges ch ON ch.endpoint_id = e.id
    WHERE ch.accepts IS NOT NULL AND e.live = 1 ${words.map(() => `AND instr(${ENDPOINT_TEXT}, ?) > 0`).join(' ')}
    ORDER BY e.id`).pluck().all(...words) as string[];
}

/**
 * Every page of a search, 7 at a time, and the totals the pages gave: both with its matches kept (as any search of
 * these few) and with them found again by walking for each page; the two must agree.
 */
function searched(filters: DiscoveryFilters): { ids: string[]; totals: Set<number> } {
  const [kept, walked] = [5_000, 0].map((keptAtMost) => {
    const ids: string[] = [];
    const totals = new Set<number>();
    for (let offset = 0; ; offset += 7) {
      const { total, resources } = listDiscoveredResources(db, filters, { limit: 7, offset }, keptAtMost);
      totals.add(total);
      ids.push(...resources.map((resource) => resource.endpoint.id));
      if (resources.length < 7) return { ids, totals };
    }
  });
  expect(walked, JSON.stringify(filters)).toEqual(kept);
  return kept!;
}

describe('the x402 Bazaar listing and search', () => {
  it('lists every live endpoint whose challenge stated x402 accepts, in id order, with its total', () => {
    const listed = expected('');
    expect(listed.length).toBeGreaterThan(150);
    expect(searched({})).toEqual({ ids: listed, totals: new Set([listed.length]) });
    expect(searched({ network: 'eip155:8453', scheme: 'exact', type: 'http' }).ids).toEqual(listed);
    expect(searched({ extensions: 'bazaar' }).ids).toEqual([]);
    expect(searched({ network: 'solana' }).ids).toEqual([]);
  });

  it('answers what the whole texts say, for rare and common words, phrases, words of the service and short words', () => {
    const queries = ['volcano', 'weather', 'chess reliable', 'api', 'agent data', 'image search', '"real-time"', '"for ai agents"',
      'lookup', 'v1/', 'hyper', 'io', 'https', 'no such word'];
    for (const query of queries) {
      const want = expected(query);
      expect(searched({ query }), query).toEqual({ ids: want, totals: new Set([want.length]) });
    }
    // Words fewer endpoints hold than are listed, and words more do: both ways of walking are taken.
    expect(expected('weather').length).toBeGreaterThan(0);
    expect(expected('api').length).toBeGreaterThan(expected('weather').length * 10);
  });

  it('follows a service renamed by a crawl at once', () => {
    const [id] = expected('');
    const serviceId = db.prepare(`SELECT service_id FROM service_endpoints WHERE id = ?`).pluck().get(id) as string;
    expect(searched({ query: 'zeppelin' }).ids).toEqual([]);
    upsertServices(db, [{ ...services.find((service) => service.id === serviceId)!, name: 'Zeppelin Weather' }], NOW);
    const renamed = searched({ query: 'zeppelin' });
    expect(renamed.ids).toContain(id);
    expect(renamed.ids).toEqual(expected('zeppelin'));
  });
});
