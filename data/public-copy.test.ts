import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from './db.ts';
import { createPublicCopy, exportPublicCopy, isCurrentPublicCopy, PUBLIC_TABLES, readCopyGeneration, RefusedCopyError, updatePublicCopy, writePublicCopy } from './public-copy.ts';
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

describe('updatePublicCopy', () => {
  /** Every listed table's rows as the copy holds them, in key order, for comparing two copies. */
  const readRows = (path: string) => {
    const copy = new Database(path, { readonly: true });
    try {
      return Object.fromEntries(Object.entries(PUBLIC_TABLES).map(([table, columns]) => {
        const list = columns.filter((column) => column !== 'rowid').join(', ');
        return [table, copy.prepare(`SELECT ${list} FROM ${table} ORDER BY ${list}`).raw().all()];
      }));
    } finally {
      copy.close();
    }
  };
  const walBytes = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

  it('keeps a copy equal to one written afresh through changes and deletions, writing a small share of it for a small change', () => {
    upsertServices(db, Array.from({ length: 200 }, (_, k) => makeService({ id: `bulk-${k}-example-com`, description: `Bulk service ${k} `.repeat(10) })), NOW);
    const kept = join(dir, 'kept.db');
    createPublicCopy(kept);
    expect(isCurrentPublicCopy(kept)).toBe(true);
    // A reader holds the file as Litestream does, so the copy's WAL is neither checkpointed nor removed.
    const holder = new Database(kept, { readonly: true });
    try {
      updatePublicCopy(db.name, kept, 1);
      const size = statSync(kept).size + walBytes(kept);
      upsertServices(db, [makeService({ id: 'a-example-com', name: 'Renamed Alpha' }), makeService({ id: 'c-example-com' })], NOW);
      db.prepare(`DELETE FROM services WHERE id = 'bulk-7-example-com'`).run();
      // Two rows trade a unique value: an update in place of either would meet the other's.
      const [first, second] = db.prepare(`SELECT service_id, position, id FROM service_endpoints ORDER BY service_id, position LIMIT 2`).all() as Array<{ service_id: string; position: number; id: string }>;
      const setId = db.prepare('UPDATE service_endpoints SET id = ? WHERE service_id = ? AND position = ?');
      db.transaction(() => [[`${first!.id}-swap`, first!], [first!.id, second!], [second!.id, first!]].forEach(([id, row]) => {
        const { service_id, position } = row as { service_id: string; position: number };
        setId.run(id, service_id, position);
      }))();
      const before = walBytes(kept);
      expect(updatePublicCopy(db.name, kept, 2)).toBe(2);
      expect(walBytes(kept) - before).toBeLessThan(size * 0.1);
      // Nothing differs now: the copy keeps its stamp and nothing is written.
      const unchanged = walBytes(kept);
      expect(updatePublicCopy(db.name, kept, 3)).toBe(2);
      expect(walBytes(kept)).toBe(unchanged);
    } finally {
      holder.close();
    }
    writePublicCopy(db, join(dir, 'fresh.db'), 2);
    // The kept copy leaves the derived columns at their default; its export sets them.
    exportPublicCopy(kept, join(dir, 'exported.db'));
    expect(readRows(join(dir, 'exported.db'))).toEqual(readRows(join(dir, 'fresh.db')));
    const derived = new Database(kept, { readonly: true });
    expect(derived.prepare(`SELECT count(*) FROM service_endpoints WHERE live IS NOT NULL OR service_uptime_30d IS NOT NULL OR service_source_count <> 0`).pluck().get()).toBe(0);
    derived.close();
    expect(readCopyGeneration(kept)).toBe(2);
    const copy = new Database(kept, { readonly: true });
    expect(copy.prepare(`SELECT count(*) FROM services_fts WHERE services_fts MATCH 'Renamed'`).pluck().get()).toBe(1);
    const matches = `SELECT rowid FROM services_fts WHERE services_fts MATCH 'Bulk' ORDER BY rowid`;
    expect(copy.prepare(matches).pluck().all()).toEqual(db.prepare(matches).pluck().all());
    copy.close();
  });

  it('is not current after the allow-list or the schema changed, so the publish creates it again', () => {
    const kept = join(dir, 'kept.db');
    createPublicCopy(kept);
    const copy = new Database(kept);
    copy.exec('ALTER TABLE services ADD COLUMN owner_contact TEXT');
    copy.close();
    expect(isCurrentPublicCopy(kept)).toBe(false);
    createPublicCopy(kept);
    new Database(kept).pragma('user_version = 3');
    expect(isCurrentPublicCopy(kept)).toBe(false);
    expect(isCurrentPublicCopy(join(dir, 'none.db'))).toBe(false);
  });
});
