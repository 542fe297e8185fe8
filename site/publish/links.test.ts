import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLinks, toLinkedPaths } from './links.ts';
import { readReleaseFiles } from './release-files.ts';

describe('readLinks', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('finds in a file read in pieces (over 1 MB) every link it finds in the file read whole', async () => {
    const root = mkdtempSync(join(tmpdir(), 'psi-links-'));
    roots.push(root);
    writeFileSync(join(root, '.build.json'), JSON.stringify({ siteUrl: 'https://index.test' }));
    const ids = Array.from({ length: 3000 }, (_, k) => `s${k}`);
    for (const id of ids) {
      mkdirSync(join(root, 'services', id), { recursive: true });
      writeFileSync(join(root, 'services', id, 'index.html'), id);
    }
    // Entries of uneven lengths, so piece ends fall inside URLs, and no whitespace at all (a minified snapshot).
    const entries = Array.from({ length: 24_000 }, (_, k) => ({ id: ids[k % ids.length], url: `https://index.test/services/${ids[(k * 7) % ids.length]}`, pad: 'x'.repeat(k % 97) }));
    const text = JSON.stringify(entries);
    expect(text.length).toBeGreaterThan(2 << 20);
    writeFileSync(join(root, 'services.json'), text);
    const files = await readReleaseFiles(root, {});
    const found = new Set<string>();
    await readLinks(root, [files.indexOf('services.json')], files, (_, to) => found.add(files.paths[to]!));
    const whole = toLinkedPaths('services.json', text, 'https://index.test', files);
    expect(whole).toHaveLength(ids.length);
    expect([...found].sort()).toEqual(whole.sort());
  });
});
