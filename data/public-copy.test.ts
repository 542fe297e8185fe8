import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from './db.ts';
import { PUBLIC_TABLES, readCopyGeneration, RefusedCopyError, writePublicCopy } from './public-copy.ts';
import { upsertServices } from './services.ts';
import { makeService } from './testing.ts';

const NOW = '2026-11-25T12:00:00.000Z';

let dir: string;
let db: DB;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'psi-public-copy-'));
  db = openDatabase(join(dir, 'index.db'));
  upsertServices(db, [makeService({ id: 'a-example-com' }), makeService({ id: 'b-example-com' })], NOW);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A public copy of `db`, changed by `alter` after it is written. */
function writeCopy(alter: (copy: Database.Database) => void = () => undefined): string {
  const path = join(dir, 'copy.db');
  writePublicCopy(db, path, 7);
  const copy = new Database(path);
  alter(copy);
  copy.close();
  return path;
}

describe('writePublicCopy and readCopyGeneration', () => {
  it('a copy holds the listed rows with their tallies and search index, and answers its generation', () => {
    const path = writeCopy();
    expect(readCopyGeneration(path)).toBe(7);
    const copy = new Database(path, { readonly: true });
    expect(copy.prepare('SELECT id FROM services ORDER BY id').pluck().all()).toEqual(['a-example-com', 'b-example-com']);
    expect(copy.prepare('SELECT total FROM service_tallies').pluck().get()).toBe(2);
    expect(copy.prepare(`SELECT count(*) FROM services_fts WHERE services_fts MATCH 'example'`).pluck().get()).toBe(2);
    expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
    copy.close();
  });

  it('leaves out a column added to a listed table until the list names it', () => {
    db.exec(`ALTER TABLE services ADD COLUMN owner_contact TEXT; UPDATE services SET owner_contact = 'someone@owner.example'`);
    const copy = new Database(writeCopy(), { readonly: true });
    expect(copy.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('services')).toEqual(PUBLIC_TABLES.services);
    copy.close();
  });

  it.each([
    ['an empty SQLite file', () => new Database(join(dir, 'copy.db')).close(), /schema version 0, this server reads \d+/],
    ['a file that is not SQLite', () => writeFileSync(join(dir, 'copy.db'), 'not a database at all, but long enough to look like a header'.repeat(20)), /not a SQLite database|unreadable/],
    ['a copy of another schema version', () => writeCopy((copy) => copy.pragma('user_version = 3')), /schema version 3/],
    ['a copy without a listed table', () => writeCopy((copy) => copy.exec('DROP TABLE probes')), /no table probes/],
    ['a copy without a listed column', () => writeCopy((copy) => copy.exec('ALTER TABLE owner_keys DROP COLUMN verified_at')), /table owner_keys lacks verified_at/],
    ['a copy without its stamp', () => writeCopy((copy) => copy.exec('DELETE FROM public_copy')), /no generation stamp/],
  ])('refuses %s, naming why', (_, make, reason) => {
    rmSync(join(dir, 'copy.db'), { force: true });
    make();
    expect(() => readCopyGeneration(join(dir, 'copy.db'))).toThrow(RefusedCopyError);
    expect(() => readCopyGeneration(join(dir, 'copy.db'))).toThrow(reason);
  });
});
