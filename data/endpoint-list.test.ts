import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from './db.ts';
import { listEndpoints } from './endpoint-list.ts';
import { writePublicCopy } from './public-copy.ts';
import { upsertServices } from './services.ts';
import { makeService } from './testing.ts';
import type { EndpointInput } from './types.ts';

/*
 * The endpoint list's `q` on a real SQLite file: found through the trigram indexes (the endpoints' own text, their
 * services' names and descriptions), kept in step with every write of endpoints, and the same in the public copy.
 */

const NOW = '2026-11-26T12:00:00.000Z';
let dir: string;
let db: DB;

const endpoint = (url: string, description: string | null): EndpointInput => ({
  url, method: 'GET', description, price: { usd: 0.01, display: '$0.01 / call' }, rails: ['x402'], chains: ['base'], assets: ['USDC'],
});

const search = (on: DB, q: string) => listEndpoints(on, { filters: { q }, page: { limit: 100, offset: 0 }, sort: 'quality' });
const urls = (on: DB, q: string) => search(on, q).endpoints.map((e) => e.url).sort();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'psi-endpoint-list-'));
  db = openDatabase(join(dir, 'index.db'));
  upsertServices(db, [
    makeService({
      id: 'tides-example-com', name: 'Tide Tables', description: 'Harbour data',
      endpoints: [endpoint('https://tides.example.com/v1/high-water', 'High water times'), endpoint('https://tides.example.com/v1/moon', null)],
    }),
    makeService({ id: 'quotes-example-com', name: 'Quotes', description: 'Stock prices', endpoints: [endpoint('https://quotes.example.com/v1/stock', 'Stock quote')] }),
  ], NOW);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('listEndpoints q', () => {
  it("finds a word in an endpoint's description, URL or its service's name, every word in any of them", () => {
    expect(urls(db, 'water')).toEqual(['https://tides.example.com/v1/high-water']);
    expect(urls(db, 'MOON')).toEqual(['https://tides.example.com/v1/moon']);
    expect(urls(db, 'tide')).toEqual(['https://tides.example.com/v1/high-water', 'https://tides.example.com/v1/moon']);
    expect(urls(db, 'harbour moon')).toEqual(['https://tides.example.com/v1/moon']);
    expect(urls(db, 'harbour stock')).toEqual([]);
    expect(search(db, 'tide').counts).toEqual({ total: 2, live: 0 });
  });

  it('reads the trigram indexes: an endpoint missing from them is not found', () => {
    db.exec(`DELETE FROM endpoints_fts`);
    expect(urls(db, 'moon')).toEqual([]);
    expect(urls(db, 'tide')).toHaveLength(2);
  });

  it('finds words shorter than the trigram index holds by testing the text', () => {
    expect(urls(db, 'v1 hi')).toEqual(['https://tides.example.com/v1/high-water']);
  });

  it('follows a rewrite of the endpoints: a new word is found, a dropped endpoint no longer', () => {
    upsertServices(db, [makeService({
      id: 'tides-example-com', name: 'Tide Tables', description: 'Harbour data',
      endpoints: [endpoint('https://tides.example.com/v2/surge', 'Storm surge forecast')],
    })], NOW);
    expect(urls(db, 'surge')).toEqual(['https://tides.example.com/v2/surge']);
    expect(urls(db, 'water')).toEqual([]);
    expect(urls(db, 'stock')).toEqual(['https://quotes.example.com/v1/stock']);
  });

  it('follows an edit of an endpoint in place', () => {
    db.prepare(`UPDATE service_endpoints SET description = 'Low water times' WHERE url = ?`).run('https://tides.example.com/v1/moon');
    expect(urls(db, 'low water')).toEqual(['https://tides.example.com/v1/moon']);
  });

  it('answers the same in the public copy', () => {
    const path = join(dir, 'copy.db');
    writePublicCopy(db, path, 1);
    const copy = new Database(path, { readonly: true });
    try {
      for (const q of ['water', 'tide', 'harbour moon', 'stock']) expect(urls(copy, q)).toEqual(urls(db, q));
    } finally {
      copy.close();
    }
  });
});
