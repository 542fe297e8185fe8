import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { writeDatabaseCopy } from '../data/backup.ts';
import { PROJECT_ROOT } from '../project.ts';
import { openFixtureDatabase, readRelease } from '../site/testing.ts';
import { createS3Client } from '../site/publish/target.ts';
import { startLocalStore, type LocalStore } from '../site/publish/testing.ts';

/*
 * `npm run rebuild -- --no-crawl --publish`, as a scheduler runs it: the real script builds the fixture database's
 * site into a new release and publishes it (the compiled publish and its copy child) to a real S3-compatible store.
 */
const dir = mkdtempSync(join(tmpdir(), 'psi-rebuild-'));
let store: LocalStore | undefined;
afterAll(async () => {
  await store?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function listKeys(env: Record<string, string>, bucket: string): Promise<string[]> {
  const client = createS3Client(env);
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((object) => object.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

describe('npm run rebuild -- --no-crawl --publish', () => {
  it('builds the release and publishes every file of it with the public copy of the database', async () => {
    store = await startLocalStore(['site']);
    const databasePath = join(dir, 'index.db');
    writeDatabaseCopy(openFixtureDatabase(), databasePath);
    const distDir = join(dir, 'dist');
    const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'scripts/rebuild.ts'), '--no-crawl', '--publish', '--to', 's3://site/index/'], {
      env: { ...process.env, ...store.env, DATABASE_PATH: databasePath, DIST_DIR: distDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code, output).toBe(0);
    expect(output).toMatch(/published to s3:\/\/site\/index\/: \d+ uploaded/);
    const keys = new Set(await listKeys(store.env, 'site'));
    const release = [...readRelease(distDir).keys()];
    expect(release).toContain('index.html');
    for (const path of release) expect(keys.has(`index/${path}`), path).toBe(true);
    expect(keys.has('index/snapshots/index.db.gz')).toBe(true);
  }, 180_000);
});
