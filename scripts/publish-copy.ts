/**
 * The child `npm run publish` (scripts/publish.ts) starts for the public copy of the database: brings the kept copy
 * up to the database while Litestream ships what changed, and meanwhile writes the whole copy gzipped to the path it
 * is given (site/publish/public-copy.ts). A process of its own because SQLite's page caches and sorts leave some 80 MB in
 * the process at 100,000 services, which the upload of 400,000 files after it would carry to its end.
 * Arguments: the target (`s3://BUCKET/PREFIX`) and the gzip file to write; the database is the config's. Tells its
 * parent `{ ok: true }` or `{ error: message }` over IPC.
 */
import { readConfig } from '../api/config.ts';
import { publishPublicCopy } from '../site/publish/public-copy.ts';
import { readTarget } from '../site/publish/target.ts';

export type CopyAnswer = { ok: true } | { error: string };

async function main(to: string, compressed: string): Promise<CopyAnswer> {
  try {
    await publishPublicCopy({ databasePath: readConfig(process.env).databasePath, keptPath: process.env.PUBLIC_COPY_PATH, target: readTarget(to), env: process.env, output: compressed });
    return { ok: true };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const [to, compressed] = process.argv.slice(2);
const answer = await main(to!, compressed!);
process.send!(answer, () => process.exit(0));
