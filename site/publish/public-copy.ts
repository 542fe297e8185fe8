import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openDatabase } from '../../data/db.ts';
import { forgetReplication, replicateWhile } from '../../data/litestream.ts';
import { createPublicCopy, exportPublicCopy, isCurrentPublicCopy, updatePublicCopy } from '../../data/public-copy.ts';
import { readLitestreamReplica, type PublishTarget } from './target.ts';

export interface PublicCopyOptions {
  /** The writer's database. */
  databasePath: string;
  /** Where the public copy is kept between publishes; default `public/index.db` beside the database. */
  keptPath?: string;
  target: PublishTarget;
  /** The store's variables (site/publish/target.ts) and Litestream's. */
  env: NodeJS.ProcessEnv;
  /** Where the whole copy is written for `snapshots/index.db.gz`. */
  output: string;
  /** The copy's stamp; default the publish time in milliseconds. */
  generation?: number;
}

/**
 * Brings the public copy kept beside the database up to it while Litestream ships the pages that changed to the
 * target's Litestream replica, then writes the whole copy to `output`. The copy is kept, not written afresh, so that
 * a small change writes (and Litestream ships) a small share of it; it is created again when the schema or the
 * allow-list changed, with Litestream's state beside it, so Litestream starts a new generation. Answers the kept
 * copy's path.
 * @example await publishPublicCopy({ databasePath: 'data/index.db', target, env: process.env, output: '/tmp/index.db' });
 */
export async function publishPublicCopy(options: PublicCopyOptions): Promise<string> {
  const databasePath = resolve(options.databasePath);
  // Opened once as the server opens it, so it has this code's schema (the copy's is the migrations' own).
  openDatabase(databasePath).close();
  const kept = resolve(options.keptPath || join(dirname(databasePath), 'public', 'index.db'));
  if (!isCurrentPublicCopy(kept)) {
    mkdirSync(dirname(kept), { recursive: true });
    forgetReplication(kept);
    createPublicCopy(kept);
  }
  // The publish time: each publish stamps a larger generation, which replicas require (a publish from a machine whose
  // clock runs behind the last one's is refused by replicas until it catches up).
  const generation = options.generation ?? Date.now();
  await replicateWhile(kept, readLitestreamReplica(options.env, options.target), options.env, () => {
    updatePublicCopy(databasePath, kept, generation);
    exportPublicCopy(kept, options.output);
  });
  return kept;
}
