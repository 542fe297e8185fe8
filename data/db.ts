import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrations } from './migrations/index.ts';

export type DB = Database.Database;

/**
 * Opens (creating if missing) the index database, switches on WAL and foreign keys, and migrates it; `cacheKiB` sets
 * the connection's page cache (better-sqlite3's default is 16,000 KiB).
 * @example const db = openDatabase('data/index.db');
 */
export function openDatabase(path: string, options: { cacheKiB?: number } = {}): DB {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (options.cacheKiB !== undefined) db.pragma(`cache_size = -${Math.floor(options.cacheKiB)}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // A writer waits up to 5 s for another connection's write lock. The wait only helps a transaction that takes the
  // lock first: every transaction in data/ that reads and then writes starts IMMEDIATE (`.immediate()`), because a
  // deferred one that has read cannot wait, and SQLite answers it SQLITE_BUSY or SQLITE_BUSY_SNAPSHOT at once.
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/**
 * Applies every migration newer than the database's `user_version`, each in its own transaction, which reads the
 * version again under the write lock: another process opening the same file may have applied it meanwhile.
 */
export function migrate(db: DB): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  if (version() >= migrations.length) return;
  for (const [index, migration] of migrations.entries()) {
    db.transaction(() => {
      if (version() > index) return;
      db.exec(migration.up);
      migration.backfill?.(db);
      db.pragma(`user_version = ${index + 1}`);
    }).immediate();
  }
}

/** Prepares each statement once per database (better-sqlite3 statements are bound to their database). */
export function preparedOnce<T extends Record<string, string>>(sql: T): (db: DB) => { [K in keyof T]: Database.Statement } {
  const cache = new WeakMap<DB, { [K in keyof T]: Database.Statement }>();
  return (db) => {
    let statements = cache.get(db);
    if (!statements) {
      statements = Object.fromEntries(Object.entries(sql).map(([key, text]) => [key, db.prepare(text)])) as {
        [K in keyof T]: Database.Statement;
      };
      cache.set(db, statements);
    }
    return statements;
  };
}

const textCache = new WeakMap<DB, Map<string, Database.Statement>>();
const TEXT_CACHE_LIMIT = 500;

/** Prepares a statement built at run time (e.g. a filter combination), reusing it while the text repeats. */
export function cachedStatement(db: DB, sql: string): Database.Statement {
  let cache = textCache.get(db);
  if (!cache) textCache.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) {
    if (cache.size >= TEXT_CACHE_LIMIT) cache.clear();
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}
