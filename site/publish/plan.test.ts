import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { toLinkedPaths, toReleasePath } from './links.ts';
import { EMPTY_MANIFEST, toPublishPlan, toWaves, type Manifest, type PublishFile } from './plan.ts';
import { ManifestError, readLegacyManifest, readManifestLines, toManifestPieces, type ManifestEntry } from './manifest.ts';

const file = (path: string, digest = `d-${path}`): PublishFile => ({ path, size: 10, digest, contentType: 'x', cacheControl: 'y' });
const paths = (waves: PublishFile[][]) => waves.map((wave) => wave.map((f) => f.path));

describe('toReleasePath and toLinkedPaths', () => {
  const files = new Set(['index.html', 'services/a/index.html', 'services/a/feed.xml', 'services/a/feed.json', 'snapshots/services/a.json',
    'docs/index.html', 'docs/purchase.md', '_astro/site.1a2b.css', 'sitemap.xml']);

  it.each([
    ['/', 'index.html'], ['/?rail=x402', 'index.html'], ['/services/a', 'services/a/index.html'], ['/services/a/', 'services/a/index.html'],
    ['/services/a#checks', 'services/a/index.html'], ['/services/a/feed.xml', 'services/a/feed.xml'], ['/docs/purchase.md', 'docs/purchase.md'],
    ['/api/v1/services/a', null], ['/badge/a.svg', null], ['/services/b', null], ['/%E0%A4%A', null],
  ])('%s is served from %s', (urlPath, expected) => {
    expect(toReleasePath(urlPath, files)).toBe(expected);
  });

  it('reads root-relative attributes of a page and absolute URLs of the site, not other origins or the API', () => {
    const html = `<link rel="canonical" href="https://index.test/services/a"><link rel="stylesheet" href="/_astro/site.1a2b.css">
      <link rel="alternate" href="https://index.test/services/a/feed.xml"><a href="/">Home</a><a href="/docs">Docs</a>
      <a href="/api/v1/services/a">API</a><a href="//cdn.example/x">cdn</a><a href="https://index.testing/docs">other</a>
      <form action="/?rail=x402&amp;live=true"></form><code>curl -s https://index.test/api/v1/services/a</code>`;
    expect(toLinkedPaths('services/a/index.html', html, 'https://index.test', files).sort())
      .toEqual(['_astro/site.1a2b.css', 'docs/index.html', 'index.html', 'services/a/feed.xml']);
  });

  it('reads the links of a feed, a sitemap and a JSON feed, without root-relative guesses outside pages', () => {
    const atom = '<feed><link rel="alternate" href="https://index.test/services/a"/><link rel="self" href="https://index.test/services/a/feed.xml"/><uri>https://index.test/</uri></feed>';
    expect(toLinkedPaths('services/a/feed.xml', atom, 'https://index.test', files).sort()).toEqual(['index.html', 'services/a/index.html']);
    const sitemap = '<urlset><url><loc>https://index.test/services/a</loc></url><url><loc>https://index.test/</loc></url></urlset>';
    expect(toLinkedPaths('sitemap.xml', sitemap, 'https://index.test', files).sort()).toEqual(['index.html', 'services/a/index.html']);
    const json = JSON.stringify({ home_page_url: 'https://index.test/services/a', feed_url: 'https://index.test/services/a/feed.json', note: 'href="/docs"' });
    expect(toLinkedPaths('services/a/feed.json', json, 'https://index.test', files)).toEqual(['services/a/index.html']);
  });
});

describe('toWaves', () => {
  it('puts every path after every path it needs, in as few waves as the longest chain', () => {
    const needs = new Map([['index.html', ['services/a/index.html', 'services/b/index.html']], ['services/a/index.html', ['services/a/endpoints/2/index.html']]]);
    expect(toWaves(['index.html', 'services/a/endpoints/2/index.html', 'services/a/index.html', 'services/b/index.html'], needs)).toEqual([
      ['services/a/endpoints/2/index.html', 'services/b/index.html'], ['services/a/index.html'], ['index.html'],
    ]);
  });

  it('breaks a cycle where it leaves the fewest links unresolved, and never releases what only depends on the cycle', () => {
    // A new page and its feeds link each other; the home page links the new page.
    const needs = new Map([
      ['services/a/index.html', ['services/a/feed.xml', 'services/a/feed.json']],
      ['services/a/feed.xml', ['services/a/index.html']],
      ['services/a/feed.json', ['services/a/index.html']],
      ['index.html', ['services/a/index.html']],
    ]);
    expect(toWaves(['index.html', 'services/a/feed.json', 'services/a/feed.xml', 'services/a/index.html'], needs)).toEqual([
      ['services/a/feed.json', 'services/a/feed.xml'], ['services/a/index.html'], ['index.html'],
    ]);
  });
});

describe('toPublishPlan', () => {
  it('uploads everything in link order when nothing is published', () => {
    const links = new Map([
      ['index.html', ['services/a/index.html', '_astro/x.css']],
      ['services/a/index.html', ['services/a/endpoints/2/index.html', '_astro/x.css']],
      ['services/a/endpoints/2/index.html', ['services/a/index.html', '_astro/x.css']],
    ]);
    const plan = toPublishPlan([file('index.html'), file('services/a/index.html'), file('_astro/x.css'), file('services/a/endpoints/2/index.html')], EMPTY_MANIFEST, links);
    expect(paths(plan.waves)).toEqual([['_astro/x.css'], ['services/a/endpoints/2/index.html', 'services/a/index.html'], ['index.html']]);
    expect(plan.unchanged).toBe(0);
    expect(plan.deletions).toEqual([]);
  });

  it('waits only for what the store lacks; skips what it holds with the same digest; deletes what left, pages first', () => {
    const manifest: Manifest = {
      version: 1,
      files: {
        'index.html': { digest: 'old', size: 1 },
        'services/a/index.html': { digest: 'old', size: 1 },
        'services/b/index.html': { digest: null, size: 1 },
        'services/c/index.html': { digest: 'd-services/c/index.html', size: 1 },
        'snapshots/services/gone.json': { digest: 'x', size: 1 },
        'services/gone/index.html': { digest: 'x', size: 1 },
      },
    };
    // The home page links a page the store holds (a) and one it may lack (b: an upload not seen to finish).
    const links = new Map([['index.html', ['services/a/index.html', 'services/b/index.html', 'services/c/index.html']]]);
    const plan = toPublishPlan([file('index.html'), file('services/a/index.html'), file('services/b/index.html'), file('services/c/index.html')], manifest, links);
    expect(paths(plan.waves)).toEqual([['services/a/index.html', 'services/b/index.html'], ['index.html']]);
    expect(plan.unchanged).toBe(1);
    expect(plan.deletions).toEqual(['services/gone/index.html', 'snapshots/services/gone.json']);
  });
});

describe('the manifest as lines', () => {
  const read = async (pieces: Iterable<Buffer>) => {
    const entries: ManifestEntry[] = [];
    for await (const entry of readManifestLines(Readable.from([...pieces]))) entries.push(entry);
    return entries;
  };

  it('reads back what it wrote, whatever the paths hold, in pieces of any size', async () => {
    const entries: ManifestEntry[] = [
      { path: '"quoted" start', digest: 'cd', size: 1 }, { path: 'a "quoted" ünïcode/path\n', digest: null, size: 0 },
      { path: 'index.html', digest: 'ab', size: 3 }, { path: 'tab\there', digest: 'ef', size: 12 },
    ];
    expect(await read(toManifestPieces(entries))).toEqual(entries);
    expect(await read(toManifestPieces(entries, 8))).toEqual(entries);
    expect(await read(toManifestPieces([]))).toEqual([]);
  });

  it("writes an entry that is a file's own record as its digest and size alone", async () => {
    const file: PublishFile = { path: 'index.html', size: 3, digest: 'ab', contentType: 'text/html; charset=utf-8', cacheControl: 'no-cache' };
    expect(Buffer.concat([...toManifestPieces([file])]).toString('utf8')).toBe('psi-publish-manifest 2\nindex.html\tab\t3\n');
    expect(await read(toManifestPieces([file]))).toEqual([{ path: 'index.html', digest: 'ab', size: 3 }]);
  });

  it('refuses entries out of order, and text that is not a manifest', async () => {
    expect(() => [...toManifestPieces([{ path: 'b', digest: 'x', size: 1 }, { path: 'a', digest: 'x', size: 1 }])]).toThrow(ManifestError);
    await expect(read([Buffer.from('psi-publish-manifest 2\nb\tx\t1\na\tx\t1\n')])).rejects.toThrow(/out of order/);
    await expect(read([Buffer.from('{"version":1,"files":{}}')])).rejects.toThrow(/not a manifest/);
  });

  it('reads the legacy JSON manifest in manifest order', () => {
    const legacy = JSON.stringify({ version: 1, files: { 'services/a/index.html': { digest: 'ab', size: 3 }, 'index.html': { digest: null, size: 0 } } });
    expect(readLegacyManifest(legacy)).toEqual([{ path: 'index.html', digest: null, size: 0 }, { path: 'services/a/index.html', digest: 'ab', size: 3 }]);
  });
});
