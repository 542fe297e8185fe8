import { mkdtempSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listPublishFiles } from './publish.ts';

/** A release of a few files on disk, with names that sort differently by code units and by locale. */
function makeRelease(): string {
  const root = mkdtempSync(join(tmpdir(), 'psi-digests-'));
  mkdirSync(join(root, 'services', 'a-b'), { recursive: true });
  mkdirSync(join(root, 'services', 'ab'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<a href="/services/ab">ab</a>');
  writeFileSync(join(root, 'Z.txt'), 'upper case sorts first by code units');
  writeFileSync(join(root, 'services', 'a-b', 'index.html'), 'a-b');
  writeFileSync(join(root, 'services', 'ab', 'index.html'), 'ab');
  return root;
}

describe('the digest cache', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('gives unchanged files their cached digest and reads a file again when its size or time changed', async () => {
    const root = makeRelease();
    roots.push(root);
    const first = await listPublishFiles(root, {});
    expect(first.map((file) => file.path)).toEqual(['index.html', 'services/a-b/index.html', 'services/ab/index.html', 'Z.txt']);
    const cache = readFileSync(join(root, '.publish-digests.tsv'), 'utf8').trim().split('\n');
    expect(cache.slice(1).map((line) => line.split('\t')[0])).toEqual(['Z.txt', 'index.html', 'services/a-b/index.html', 'services/ab/index.html']);

    // A cached digest is trusted while size and time match: a planted one shows it was not read again.
    const planted = cache.map((line) => (line.startsWith('services/ab/') ? line.replace(/[0-9a-f]{64}$/, 'f'.repeat(64)) : line));
    writeFileSync(join(root, '.publish-digests.tsv'), `${planted.join('\n')}\n`);
    const cached = await listPublishFiles(root, {});
    expect(cached.find((file) => file.path === 'services/ab/index.html')!.digest).toBe('f'.repeat(64));
    expect(cached.filter((file) => file.path !== 'services/ab/index.html').map((file) => file.digest))
      .toEqual(first.filter((file) => file.path !== 'services/ab/index.html').map((file) => file.digest));

    // A new time (a page rendered again) is read again, whatever the cache says.
    utimesSync(join(root, 'services', 'ab', 'index.html'), new Date(), new Date(Date.now() + 5000));
    const reread = await listPublishFiles(root, {});
    expect(reread.find((file) => file.path === 'services/ab/index.html')!.digest).toBe(first.find((file) => file.path === 'services/ab/index.html')!.digest);
  });

  it('reads every file when the cache is missing or broken', async () => {
    const root = makeRelease();
    roots.push(root);
    const first = await listPublishFiles(root, {});
    writeFileSync(join(root, '.publish-digests.tsv'), 'not json\nservices/ab/index.html\t1\t2\t0\tbad\n');
    expect((await listPublishFiles(root, {})).map((file) => file.digest)).toEqual(first.map((file) => file.digest));
  });
});
