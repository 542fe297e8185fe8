import { rmSync } from 'node:fs';
import type { DB } from './db.ts';

/**
 * A consistent copy of the whole database in one file, secrets included, for backups (never published: replicas get
 * data/public-copy.ts): SQLite's `VACUUM INTO` reads one snapshot of the data while writers go on (WAL), and writes
 * it compacted, without the WAL and with no free pages; a copy of the live file could catch a write half done.
 * @example writeDatabaseCopy(db, '/tmp/index.db');
 */
export function writeDatabaseCopy(db: DB, path: string): void {
  rmSync(path, { force: true });
  db.prepare('VACUUM INTO ?').run(path);
}
