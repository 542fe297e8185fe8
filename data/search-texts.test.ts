import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from './db.ts';
import { listEndpoints } from './endpoint-list.ts';
import { ENDPOINT_TEXT } from './endpoints.ts';
import { writePublicCopy } from './public-copy.ts';
import { upsertServices } from './services.ts';
import { makeService } from './testing.ts';
import type { EndpointInput } from './types.ts';

/*
 * The search texts kept by triggers (migration 022), on a real SQLite file: after every kind of write of endpoints
 * and services, each endpoint's kept texts joined to its service's are its whole search text as computed from the
 * rows, its score words are its service's name and description and its own description as the score reads them,
 * no text is kept for a row that is gone; and a search finds what the rows now say.
 */

const NOW = '2026-11-26T12:00:00.000Z';
let dir: string;
let db: DB;

const endpoint = (url: string, description: string | null, tags: string[] = []): EndpointInput => ({
  url, method: 'GET', description, price: { usd: 0.01, display: '$0.01' }, rails: ['x402'], chains: ['base'], assets: ['USDC'], tags,
});

/** Lower-cased (ASCII, as SQLite's lower), with `,` `.` `-` as spaces: the score's words. */
const wordsOf = (text: string) => text.toLowerCase().replace(/[,.-]/g, ' ');

function fill(on: DB): void {
  upsertServices(on, Array.from({ length: 6 }, (_, i) => makeService({
    id: `s${i}-test`,
    name: `Weather-Station ${i}`,
    description: i % 2 === 0 ? 'Forecasts, Radar. Alerts' : null,
    endpoint: `https://s${i}.test/main`,
    endpoints: [
      endpoint(`https://s${i}.test/main`, 'Current Conditions'),
      endpoint(`https://s${i}.test/Hourly`, i % 3 === 0 ? null : 'Hour-by-hour, Forecast.', ['Storm', 'wind']),
    ],
  })), NOW);
}

/** Every endpoint's kept texts equal what its rows say, and only existing rows have any. */
function expectInStep(on: DB): void {
  const rows = on.prepare(`SELECT e.search_rowid, ${ENDPOINT_TEXT} AS computed, t.text || ' ' || st.text AS kept,
      s.name, s.description AS service_description, e.description, t.words, st.words AS service_words
    FROM service_endpoints e JOIN services s ON s.id = e.service_id
    LEFT JOIN endpoint_texts t ON t.search_rowid = e.search_rowid LEFT JOIN service_texts st ON st.rowid = t.service_rowid
    ORDER BY e.search_rowid`).all() as Array<Record<string, string | number | null>>;
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect([row.search_rowid, row.kept]).toEqual([row.search_rowid, row.computed]);
    expect([row.search_rowid, row.words]).toEqual([row.search_rowid, ` ${wordsOf(String(row.description ?? ''))} `]);
    expect([row.search_rowid, row.service_words])
      .toEqual([row.search_rowid, ` ${wordsOf(String(row.name))} ${wordsOf(String(row.service_description ?? ''))} `]);
  }
  expect(on.prepare(`SELECT count(*) FROM endpoint_texts`).pluck().get()).toBe(rows.length);
  expect(on.prepare(`SELECT count(*) FROM service_texts`).pluck().get()).toBe(on.prepare(`SELECT count(*) FROM services`).pluck().get());
}

const found = (on: DB, q: string) => listEndpoints(on, { filters: { q }, page: { limit: 100, offset: 0 }, sort: 'relevance' }).endpoints.map((e) => e.url);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'psi-search-texts-'));
  db = openDatabase(join(dir, 'index.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the search texts kept by triggers (migration 022)', () => {
  it('follow every write of endpoints and services', () => {
    fill(db);
    expectInStep(db);
    const writes: Array<[string, () => void, () => void]> = [
      ['a service renamed and described anew', () => upsertServices(db, [makeService({
        id: 's1-test', name: 'Tide Tables', description: 'Ocean-Levels, hourly.', endpoint: 'https://s1.test/main',
        endpoints: [endpoint('https://s1.test/main', 'Current Conditions'), endpoint('https://s1.test/Hourly', 'Hour-by-hour, Forecast.', ['Storm', 'wind'])],
      })], NOW), () => {
        expect(found(db, 'tide levels').sort()).toEqual(['https://s1.test/Hourly', 'https://s1.test/main']);
        expect(found(db, 'weather')).not.toContain('https://s1.test/main');
      }],
      ['an endpoint\'s description, URL and tags rewritten, one added', () => upsertServices(db, [makeService({
        id: 's2-test', name: 'Weather-Station 2', description: 'Forecasts, Radar. Alerts', endpoint: 'https://s2.test/main',
        endpoints: [endpoint('https://s2.test/main', 'Snow Depth'), endpoint('https://s2.test/Daily', null, ['Hail']),
          endpoint('https://s2.test/uv', 'UV index')],
      })], NOW), () => {
        expect(found(db, 'snow weather')).toEqual(['https://s2.test/main']);
        expect(found(db, 'hail radar')).toEqual(['https://s2.test/Daily']);
        expect(found(db, 'storm weather')).not.toContain('https://s2.test/Hourly');
      }],
      ['a description written by hand', () => db.prepare(`UPDATE service_endpoints SET description = 'Pollen, Count' WHERE url = 'https://s4.test/Hourly'`).run(),
        () => expect(found(db, 'pollen weather')).toEqual(['https://s4.test/Hourly'])],
      ['a service renamed by hand', () => db.prepare(`UPDATE services SET name = 'Lightning Map' WHERE id = 's3-test'`).run(),
        () => expect(db.prepare(`SELECT text FROM service_texts WHERE rowid = (SELECT rowid FROM services WHERE id = 's3-test')`).pluck().get())
          .toBe('lightning map ')],
      ['an endpoint deleted', () => db.prepare(`DELETE FROM service_endpoints WHERE url = 'https://s0.test/Hourly'`).run(),
        () => expect(found(db, 'storm weather')).not.toContain('https://s0.test/Hourly')],
      ['a service deleted', () => db.prepare(`DELETE FROM services WHERE id = 's5-test'`).run(),
        () => expect(found(db, 'weather station')).not.toContain('https://s5.test/main')],
    ];
    for (const [, write, check] of writes) {
      write();
      check();
      expectInStep(db);
    }
  });

  it('are filled by the migration on a database made before it', () => {
    fill(db);
    const kept = (on: DB) => [on.prepare(`SELECT * FROM endpoint_texts ORDER BY search_rowid`).all(), on.prepare(`SELECT * FROM service_texts ORDER BY rowid`).all()];
    const before = kept(db);
    // Back to version 21: 022's tables, index and triggers and every later migration's indexes and columns go.
    db.exec(`DROP INDEX service_endpoints_search_keys; DROP TABLE endpoint_texts; DROP TABLE service_texts;
      DROP INDEX endpoint_challenges_listed; DROP INDEX service_endpoints_listing; DROP INDEX service_endpoints_with_input;`);
    for (const name of ['service_endpoints_texts_update', 'service_endpoints_texts_delete', 'services_texts_insert', 'services_texts_update',
      'services_texts_delete']) db.exec(`DROP TRIGGER ${name}`);
    db.exec('ALTER TABLE services DROP COLUMN input_digest');
    db.pragma('user_version = 21');
    db.close();
    db = openDatabase(join(dir, 'index.db'));
    expect(kept(db)).toEqual(before);
    expectInStep(db);
  });

  it('are the same in the public copy, whose searches answer the same', () => {
    fill(db);
    const path = join(dir, 'copy.db');
    writePublicCopy(db, path, 1);
    const copy = new Database(path);
    try {
      expectInStep(copy);
      for (const q of ['weather forecast', 'storm station', 'radar hourly']) expect(found(copy, q)).toEqual(found(db, q));
      expect(found(db, 'weather forecast').length).toBeGreaterThan(0);
    } finally {
      copy.close();
    }
  });
});
