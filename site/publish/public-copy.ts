import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
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
  /** Where the whole copy is written, gzip-compressed, for `snapshots/index.db.gz`. */
  output: string;
  /** The copy's stamp; default the publish time in milliseconds. */
  generation?: number;
}

/**
 * Brings the public copy kept beside the database up to it while Litestream ships the pages that changed to the
 * target's Litestream replica, and meanwhile writes the whole copy to `output`, compressed. The copy is kept, not written afresh, so that
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
  await replicateWhile(kept, readLitestreamReplica(options.env, options.target), options.env,
    () => updatePublicCopy(databasePath, kept, generation),
    () => writeCompressedCopy(kept, options.output));
  return kept;
}

/**
 * The whole copy at `output` as a plain gzip file (about a fifth of the size), so a download is what its name says;
 * level 1 keeps a publish fast.
 */
async function writeCompressedCopy(kept: string, output: string): Promise<void> {
  const whole = `${output}.export`;
  try {
    exportPublicCopy(kept, whole);
    await pipeline(createReadStream(whole), createGzip({ level: 1 }), createWriteStream(output));
  } finally {
    rmSync(whole, { force: true });
  }
}
