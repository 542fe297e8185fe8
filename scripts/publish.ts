/**
 * `npm run publish -- --to s3://BUCKET/PREFIX`: uploads the current release (DIST_DIR) and the public copy of
 * the database for read replicas (`snapshots/index.db.gz`, data/public-copy.ts) to an S3-compatible store for a CDN
 * to serve (site/publish/), and ships what changed in the public copy to its Litestream replica (`litestream/`
 * under the same prefix, data/litestream.ts), which replicas with `REPLICA_OF=s3://...` follow. Only what changed is uploaded (the copy, stamped by each publish, always is); a
 * progress display on a terminal, a summary at the end. The store is configured by the standard AWS variables plus
 * S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE (site/publish/target.ts); the target may come from PUBLISH_TO instead
 * of --to. Exits 0 when published, 1 when the store failed, 2 on bad arguments or no
 * release to publish.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import { readConfig } from '../api/config.ts';
import { compiledPath, PROJECT_ROOT, RUNS_COMPILED } from '../project.ts';
import { DEFAULT_CONCURRENCY, publishSite, type PublishOptions } from '../site/publish/publish.ts';
import { createStore, PublishError } from '../site/publish/store.ts';
import { createS3Client, readTarget } from '../site/publish/target.ts';
import type { CopyAnswer } from './publish-copy.ts';

const DATABASE_KEY = 'snapshots/index.db.gz';

function readArguments() {
  const { values } = parseArgs({
    options: { to: { type: 'string' }, concurrency: { type: 'string' } },
    strict: true,
  });
  const to = values.to ?? process.env.PUBLISH_TO;
  if (!to) throw new Error('say where to publish: --to s3://BUCKET/PREFIX (or PUBLISH_TO)');
  const concurrency = values.concurrency === undefined ? DEFAULT_CONCURRENCY : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
    throw new Error(`--concurrency wants a whole number from 1 to 256, got "${values.concurrency}"`);
  }
  return { to, target: readTarget(to), concurrency };
}

function createProgress(): Pick<PublishOptions, 'onStart' | 'onUpload'> {
  if (!process.stderr.isTTY) {
    return { onStart: (plan) => console.error(`publish: ${plan.uploads} to upload (${formatBytes(plan.bytes)}), ${plan.unchanged} unchanged, ${plan.deletions} to delete`) };
  }
  const bar = new SingleBar({ format: 'upload |{bar}| {value}/{total} files | {sent} | ETA {eta_formatted}', hideCursor: true }, Presets.shades_classic);
  let sent = 0;
  return {
    onStart: (plan) => bar.start(plan.uploads, 0, { sent: formatBytes(0) }),
    onUpload: (file) => {
      sent += file.size;
      bar.increment(1, { sent: formatBytes(sent) });
      if (bar.getProgress() >= 1) bar.stop();
    },
  };
}

const formatBytes = (bytes: number) => (bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`);

const COPY_SCRIPT = 'scripts/publish-copy.ts';

/** The public copy, gzipped at `compressed`, written by a child of its own (scripts/publish-copy.ts says why). */
async function writePublicCopy(to: string, compressed: string): Promise<void> {
  // The child runs as this process does: compiled (npm run publish) or under tsx, whose loader it inherits.
  const script = RUNS_COMPILED ? compiledPath(COPY_SCRIPT) : join(PROJECT_ROOT, COPY_SCRIPT);
  const child = fork(script, [to, compressed], { stdio: 'inherit' });
  const answer = await new Promise<CopyAnswer | null>((resolve, reject) => {
    let said: CopyAnswer | null = null;
    child.on('message', (message) => { said = message as CopyAnswer; });
    child.on('error', reject);
    child.on('exit', () => resolve(said));
  });
  if (answer === null) throw new Error('the public copy of the database could not be written (its process ended without a word)');
  if ('error' in answer) throw new Error(answer.error);
}

async function main(): Promise<number> {
  let args: ReturnType<typeof readArguments>;
  let config: ReturnType<typeof readConfig>;
  let root: string;
  try {
    args = readArguments();
    config = readConfig(process.env);
    root = realpathSync(resolve(process.env.DIST_DIR || 'dist'));
  } catch (error) {
    console.error(`publish: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no release to publish: run npm run build first' : (error as Error).message}`);
    return 2;
  }
  const work = mkdtempSync(join(tmpdir(), 'psi-publish-'));
  try {
    const compressed = join(work, 'index.db.gz');
    const store = createStore(createS3Client(process.env), args.target);
    // The store's answer to these credentials first, in its own words, before Litestream talks to it.
    await store.assertWritable();
    await writePublicCopy(args.to, compressed);
    const summary = await publishSite({ store, root, extra: { [DATABASE_KEY]: compressed }, concurrency: args.concurrency, ...createProgress() });
    console.log(`published to s3://${args.target.bucket}/${args.target.prefix}: ${summary.uploaded} uploaded (${formatBytes(summary.bytes)}), `
      + `${summary.unchanged} unchanged, ${summary.deleted} deleted, in ${summary.seconds.toFixed(1)} s`);
    return 0;
  } catch (error) {
    console.error(`\npublish failed: ${error instanceof PublishError ? error.message : (error as Error).message}; the next publish completes this one`);
    return 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exit(await main());
