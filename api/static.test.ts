import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../data/db.ts';
import { createSite } from '../site/build/site.ts';
import { buildFixtureSite, FIXTURE_NOW, openFixtureDatabase, type FixtureSite } from '../site/testing.ts';
import { createApp } from './app.ts';
import { testConfig } from './testing.ts';

describe('serving the built site (api/static.ts)', () => {
  let db: DB;
  let site: FixtureSite;
  let request: (path: string, init?: RequestInit) => Promise<Response>;
  beforeAll(async () => {
    db = openFixtureDatabase();
    site = await buildFixtureSite(db);
    const pages = createSite(db, site.options);
    const app = createApp({ db, config: testConfig(), now: () => FIXTURE_NOW, site: { distDir: site.distDir, renderHome: pages.renderHome, renderPurchase: pages.renderPurchase } });
    request = async (path, init) => app.request(path, init);
  });
  afterAll(() => site?.remove());

  it('serves pages by their paths, with types, caching and a strict content policy', async () => {
    for (const path of ['/', '/services/alpha-example-com', '/services/alpha-example-com/', '/docs', '/services/many-example-com/endpoints/2']) {
      const response = await request(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=60, s-maxage=300');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
    expect(await (await request('/services/alpha-example-com')).text()).toContain('<h1><bdi>Alpha Weather</bdi></h1>');
  });

  it.each([
    ['/pricing.md', 'text/markdown; charset=utf-8'],
    ['/docs/purchase.md', 'text/markdown; charset=utf-8'],
    ['/llms.txt', 'text/plain; charset=utf-8'],
    ['/robots.txt', 'text/plain; charset=utf-8'],
    ['/sitemap.xml', 'application/xml; charset=utf-8'],
    ['/snapshots/services.json', 'application/json; charset=utf-8'],
    ['/snapshots/services/alpha-example-com.json', 'application/json; charset=utf-8'],
    ['/favicon.svg', 'image/svg+xml'],
  ])('serves %s as %s', async (path, type) => {
    const response = await request(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
  });

  it('caches hashed assets for a year and answers a matching ETag with 304, HEAD without a body', async () => {
    const html = await (await request('/')).text();
    const css = /href="(\/_astro\/[^"]+\.css)"/.exec(html)![1]!;
    const asset = await request(css);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const etag = asset.headers.get('etag')!;
    expect((await request(css, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await request('/llms.txt', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(100);
    expect(await head.text()).toBe('');
  });

  it("answers an unknown page with the site's 404 page to a browser, JSON to every other client, and /api/ with JSON", async () => {
    const browser = { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } };
    const missing = await request('/services/no-such-service', browser);
    expect([missing.status, missing.statusText]).toEqual([404, 'Not Found']);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await missing.text()).toContain('Page not found');
    // An agent, or curl (Accept: */*), gets the Error shape, also for paths that only look like the API's.
    for (const path of ['/services/no-such-service', '/API/v1/stats', '//api/v1/stats', '/api%2Fv1%2Fstats', '/api/v1/nope', '/api/', '/api']) {
      for (const init of [{}, { headers: { accept: '*/*' } }, { headers: { accept: 'application/json' } }]) {
        const answer = await request(path, init);
        expect(answer.status, path).toBe(404);
        expect(answer.headers.get('content-type'), path).toContain('application/json');
        const { error } = await answer.json();
        expect([error.code, error.endpoints], path).toEqual(['not_found', expect.arrayContaining(['/api/v1/services'])]);
      }
    }
    for (const path of ['/api/v1/nope', '/api']) expect((await request(path, browser)).headers.get('content-type')).toContain('application/json');
    const post = await request('/services/alpha-example-com', { method: 'POST' });
    expect(post.headers.get('content-type')).toContain('application/json');
    expect((await request('/api/v1/services/alpha-example-com')).headers.get('content-type')).toContain('application/json');
  });

  it('gives every page its reason phrase', async () => {
    expect((await request('/')).statusText).toBe('OK');
    expect((await request('/services/Alpha-Example-COM')).statusText).toBe('Moved Permanently');
  });

  it('redirects a listing path with capitals to the lower-case one', async () => {
    const response = await request('/services/Alpha-Example-COM');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/services/alpha-example-com');
    const doubled = await request('//Services/alpha-example-com');
    expect(doubled.headers.get('location')).toBe('/services/alpha-example-com');
  });

  it('refuses dotfiles, traversal and encoded separators', async () => {
    for (const path of ['/.build.json', '/services/%2e%2e/%2e%2e/package.json', '/..%2f..%2fpackage.json', '/%2e%2e%5cpackage.json',
      '/services/alpha-example-com/index.html%00', '/_astro/../.build.json']) {
      const response = await request(path, { headers: { accept: 'text/html' } });
      expect(response.status, path).toBe(404);
      expect(await response.text()).toContain('Page not found');
    }
  });

  it('does not follow a symlink out of the site', async () => {
    symlinkSync('/etc/hostname', join(site.distDir, 'escape.txt'));
    expect((await request('/escape.txt')).status).toBe(404);
  });

  it('renders the home page for a query, so search works without JavaScript', async () => {
    const filtered = await request('/?rail=mpp&live=true');
    expect(filtered.status).toBe(200);
    const html = await filtered.text();
    expect(html).toContain('Showing 1 of 1 service matching');
    expect(html).toContain('href="/services/dual-example-com"');
    expect(html).not.toContain('href="/services/alpha-example-com"');
    const search = await (await request('/?q=weather')).text();
    expect(search).toContain('value="weather"');
    expect(search).toContain('Alpha Weather');
    expect(await (await request('/?utm_source=x')).text()).toContain('Showing 1–6 of 6 services');
  });

  it('renders the approval page of /purchase/{id} with the purchase, never cached; an unknown purchase is a 404', async () => {
    const created = await request('/api/v1/purchases', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ service_id: 'index-demo-web-search', params: { query_id: 'x402-facilitators' } }),
    });
    const { id } = await created.json() as { id: string };
    const response = await request(`/purchase/${id}`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy'), 'the page sets its own policy').toBeNull();
    const html = await response.text();
    expect(html).toContain('0.003 USDC (3000 atomic units)');
    expect(html).toContain(`action="/api/v1/purchases/${id}/decline"`);

    const unknown = await request('/purchase/pur_nothing', { headers: { accept: 'text/html' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("This page isn't here");
    const agent = await request('/purchase/pur_nothing');
    expect([agent.status, (await agent.json() as { error: { code: string } }).error.code]).toEqual([404, 'not_found']);
  });

  it('answers 503 with a hint while no site is built', async () => {
    const app = createApp({ db, config: testConfig(), now: () => FIXTURE_NOW, site: { distDir: join(site.dir, 'nothing') } });
    const response = await app.request('/');
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm run build');
    expect((await app.request('/api/v1/stats')).status).toBe(200);
  });
});
