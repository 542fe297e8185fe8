import { describe, expect, it } from 'vitest';
import { EMPTY_MANIFEST, toPublishPlan, toWave, type Manifest, type PublishFile } from './plan.ts';

const file = (path: string, digest = `d-${path}`): PublishFile => ({ path, size: 10, digest, contentType: 'x', cacheControl: 'y' });

describe('toWave', () => {
  it.each([
    ['_astro/site.3f2a.css', 0], ['snapshots/services/a.json', 0], ['snapshots/services.json', 0], ['snapshots/index.db.gz', 0], ['favicon.svg', 0],
    ['services/a/endpoints/2/index.html', 1],
    ['services/a/index.html', 2],
    ['index.html', 3], ['404.html', 3], ['docs/index.html', 3], ['sitemap.xml', 3], ['llms.txt', 3], ['robots.txt', 3], ['pricing.md', 3], ['docs/purchase.md', 3],
  ])('%s goes in wave %i', (path, wave) => {
    expect(toWave(path)).toBe(wave);
  });
});

describe('toPublishPlan', () => {
  it('uploads everything in link order when nothing is published', () => {
    const plan = toPublishPlan([file('index.html'), file('services/a/index.html'), file('_astro/x.css'), file('services/a/endpoints/2/index.html')], EMPTY_MANIFEST);
    expect(plan.waves.map((wave) => wave.map((f) => f.path))).toEqual([['_astro/x.css'], ['services/a/endpoints/2/index.html'], ['services/a/index.html'], ['index.html']]);
    expect(plan.unchanged).toBe(0);
    expect(plan.deletions).toEqual([]);
  });

  it('skips what the manifest holds with the same digest, re-uploads what it marks unknown, deletes what left, pages first', () => {
    const manifest: Manifest = {
      version: 1,
      files: {
        'index.html': { digest: 'old', size: 1 },
        'services/a/index.html': { digest: 'd-services/a/index.html', size: 1 },
        'services/b/index.html': { digest: null, size: 1 },
        'snapshots/services/gone.json': { digest: 'x', size: 1 },
        'services/gone/index.html': { digest: 'x', size: 1 },
      },
    };
    const plan = toPublishPlan([file('index.html'), file('services/a/index.html'), file('services/b/index.html')], manifest);
    expect(plan.waves.map((wave) => wave.map((f) => f.path))).toEqual([['services/b/index.html'], ['index.html']]);
    expect(plan.unchanged).toBe(1);
    expect(plan.deletions).toEqual(['services/gone/index.html', 'snapshots/services/gone.json']);
  });
});
