import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, ServiceDetail, ServiceList, Stats } from '../../domain/schemas.ts';
import type { DB } from '../../data/db.ts';
import { noteFacilitators, recordFacilitatorCheck } from '../../data/facilitators.ts';
import { recordProbe } from '../../data/probes.ts';
import { upsertServices } from '../../data/services.ts';
import { makeService } from '../../data/testing.ts';
import { buildFixtureSite, FIXTURE_NOW, FIXTURE_SERVICES, makeProbes, openFixtureDatabase, type FixtureSite } from '../testing.ts';
import { buildSite } from './build.ts';
import { refreshSite, renderChanged } from './refresh.ts';
import { isHistoryDue } from './history.ts';
import { releasesDirOf } from './release.ts';
import { createSite } from './site.ts';

/** The text a reader sees: tags dropped, entities decoded, spaces collapsed. */
function toText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<\/?(?:p|div|td|th|tr|dt|dd|li|ul|h[1-6]|br|caption|title|section|pre|figcaption|label|option|text|nav|header|footer)\b[^>]*>/g, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;|&#x27;/g, "'").replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

const minutesAfter = (minutes: number) => new Date(FIXTURE_NOW.getTime() + minutes * 60_000).toISOString();
const listFiles = (root: string) => readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((path) => !path.split('/').some((segment) => segment.startsWith('.')) && statSync(join(root, path)).isFile()).sort();
const read = (site: FixtureSite, path: string) => readFileSync(join(site.distDir, path), 'utf8');
const pageText = (site: FixtureSite, path: string) => toText(read(site, path));

describe('the built site', () => {
  let db: DB;
  let site: FixtureSite;
  beforeAll(async () => {
    db = openFixtureDatabase();
    site = await buildFixtureSite(db);
  });
  afterAll(() => site?.remove());

  it('is a symlink to a complete release holding every page, document and snapshot', () => {
    expect(lstatSync(site.distDir).isSymbolicLink()).toBe(true);
    expect(readlinkSync(site.distDir)).toMatch(/^dist\.releases\/\d{8}T\d{6}Z-\d+$/);
    for (const path of ['index.html', '404.html', 'docs/index.html', 'pricing.md', 'docs/purchase.md', 'llms.txt', 'robots.txt', 'sitemap.xml',
      'favicon.svg', 'snapshots/services.json', 'snapshots/stats.json', 'snapshots/services/alpha-example-com.json', '.build.json',
      'services/alpha-example-com/index.html', 'services/shop-example/index.html', 'services/many-example-com/endpoints/4/index.html']) {
      expect(existsSync(join(site.distDir, path)), path).toBe(true);
    }
    expect(existsSync(join(site.distDir, 'services/many-example-com/endpoints/5'))).toBe(false);
    expect(readdirSync(join(site.distDir, '_astro')).some((name) => name.endsWith('.css'))).toBe(true);
    expect(readdirSync(join(site.distDir, 'services')).sort()).toEqual([
      'alpha-example-com', 'down-example-com', 'dual-example-com', 'fresh-example-com', 'many-example-com', 'shop-example',
    ]);
  });

  it('shows every element of the listing page as text', () => {
    const html = read(site, 'services/alpha-example-com/index.html');
    const text = toText(html);
    for (const expected of [
      'Alpha Weather', 'Current weather for any city, paid per call.',
      'Challenge detected', 'Listed price $0.01', '18 of the last 20 checks detected a challenge', 'Median response 1',
      'Last checked 2026-11-01 11:59 UTC', 'First indexed 2026-09-22',
      'curl -i https://alpha.example.com/v1/weather # Expect HTTP 402 Payment Required with an x402 payment challenge; pay with an x402 client in USDC on base.',
      '3 endpoints listed by x402 Bazaar (facilitator discovery), Open 402 Directory', 'Base URL https://alpha.example.com',
      'Showing 1–3 of 3 endpoints', 'GET /v1/weather main, checked $0.01 Weather now', 'POST /v1/forecast $0 —',
      '— https://cdn.other.example/alpha/history No price listed History, hosted elsewhere',
      'Time (UTC) Result HTTP status Response time (ms) Reason', '2026-11-01 11:59 UTC Challenge detected 402',
      'No challenge detected 404', 'answered HTTP 404 without a payment challenge',
      'What did the last check find?', 'What price is recorded? $0.01 per call (listed as "$0.01 / call")',
      'Which payment terms does it advertise? Rail: x402. Chains: base. Assets: USDC. Facilitator: https://x402.org/facilitator.',
      'Where is it listed?', 'GET /api/v1/services/alpha-example-com',
      'Last 24 h 92.0 %', 'Last 7 d 90.0 %', 'Last 30 d 90.0 %',
      'Recent changes', 'was listed on x402 at https://alpha.example.com/v1/weather.', 'Price history', 'Badge',
    ]) {
      expect(text, expected).toContain(expected);
    }
    // Endpoints (head and 3 rows), checks (head and 20 rows), and the head of the recent changes, whose rows are marked.
    expect(html.match(/<tr>/g)!.length).toBe(1 + 3 + 1 + 20 + 1);
    expect(html.match(/<tr data-change=/g)!.length).toBeGreaterThanOrEqual(1);
    expect(html).toContain('<svg class="chart"');
    expect(html).toContain('<a href="https://x402.org/facilitator" rel="nofollow noopener">');
    expect(html).toContain('<link rel="canonical" href="https://index.test/services/alpha-example-com">');
  });

  it("says 'Not checked yet' for a service never checked, and why an acp:// one never is", () => {
    const fresh = pageText(site, 'services/fresh-example-com/index.html');
    expect(fresh).toContain('Not checked yet');
    expect(fresh).toContain('Recent checks Not checked yet');
    expect(fresh).toContain('Listed price $0.01');
    expect(fresh).toContain('Last 24 h No checks');
    const shop = read(site, 'services/shop-example/index.html');
    expect(toText(shop)).toContain('acp://shop.example is not an HTTP URL');
    expect(toText(shop)).toContain('Base URL acp://shop.example');
    expect(toText(shop)).toContain('Payment terms ACP settled at checkout; no chain or asset listed');
    expect(toText(shop)).toContain('What price is recorded? No price listed. An ACP merchant sets the price at checkout inside the agent platform');
    expect(toText(shop)).not.toContain('The challenge states the amount');
    expect(toText(shop)).toContain('Which payment terms does it advertise? Rail: ACP, settled at checkout; no chain or asset listed.');
    expect(toText(shop)).not.toContain('None listed');
    expect(shop).not.toContain('curl -i');
    expect(shop).not.toMatch(/href="acp:/);
    const down = pageText(site, 'services/down-example-com/index.html');
    expect(down).toContain('No challenge detected on the last check, 2026-11-01 11:59 UTC: timed out after 10 s');
    expect(down).toContain('Reason: timed out after 10 s. 3 of the last 6 checks detected a challenge.');
    expect(down).toMatch(/Median response \d+ ms over the last 5 answered checks/);
  });

  it('pages the endpoints of a host with 200 of them, every page linked', () => {
    const first = read(site, 'services/many-example-com/index.html');
    expect(toText(first)).toContain('Showing 1–50 of 200 endpoints');
    for (const page of [2, 3, 4]) expect(first).toContain(`href="/services/many-example-com/endpoints/${page}"`);
    const second = pageText(site, 'services/many-example-com/endpoints/2/index.html');
    expect(second).toContain('Showing 51–100 of 200 endpoints');
    expect(second).toContain('/v1/tool-051');
    expect(second).not.toContain('/v1/tool-050 ');
    expect(pageText(site, 'services/many-example-com/endpoints/4/index.html')).toContain('Showing 151–200 of 200 endpoints');
  });

  it('writes a home page that lists, counts and filters without JavaScript', () => {
    const html = read(site, 'index.html');
    const text = toText(html);
    expect(text).toContain('Showing 1–6 of 6 services');
    expect(text).toContain('6 services · 2 live · 1 dual-rail');
    expect(html).toContain('<form class="search" role="search" method="get" action="/"');
    for (const name of ['q', 'rail', 'chain', 'asset', 'live']) expect(html).toContain(`name="${name}"`);
    expect(html).toContain('href="/?rail=mpp"');
    expect(html).toContain('href="/services/alpha-example-com"');
    expect(html).toMatch(/<script type="module" src="\/_astro\/[^"]+\.js"><\/script>/);
  });

  it('writes the documents: docs, pricing, purchase guide, llms.txt, sitemap, robots, 404', () => {
    expect(pageText(site, 'docs/index.html')).toContain("curl -s 'https://index.test/api/v1/services?rail=x402&chain=base&live=true&limit=20'");
    // The MCP section lists the tools from the operations, so a tool added there is listed here.
    expect(read(site, 'docs/index.html')).toContain('<code>get_stats</code>, <code>get_status</code>, <code>get_changes</code>');
    // The error codes too: every one of ERROR_CODES, each with what it means.
    for (const code of ERROR_CODES) expect(read(site, 'docs/index.html')).toMatch(new RegExp(`<li><code>${code}</code>: [^<]+\\.</li>`));
    expect(read(site, 'pricing.md')).toContain('Reading the index is free');
    expect(read(site, 'docs/purchase.md')).toContain('## 2. Ask for a purchase');
    expect(read(site, 'llms.txt')).toContain('6 services, 2 of them answered a payment challenge');
    expect(read(site, 'sitemap.xml')).toContain('<loc>https://index.test/services/shop-example</loc>');
    expect(read(site, 'robots.txt')).toContain('Sitemap: https://index.test/sitemap.xml');
    expect(pageText(site, '404.html')).toContain('Page not found');
  });

  it('writes snapshots valid against the API schemas', () => {
    const list = ServiceList.parse(JSON.parse(read(site, 'snapshots/services.json')));
    expect(list.services).toHaveLength(6);
    // The data's own time (the newest probe, a minute before FIXTURE_NOW), not the render's.
    expect(list.generated_at).toBe(new Date(FIXTURE_NOW.getTime() - 60_000).toISOString());
    expect(Stats.parse(JSON.parse(read(site, 'snapshots/stats.json'))).total).toBe(6);
    for (const id of readdirSync(join(site.distDir, 'services'))) {
      expect(ServiceDetail.parse(JSON.parse(read(site, `snapshots/services/${id}.json`))).id).toBe(id);
    }
  });

  it('renders no directory data as markup: no set:html anywhere in the site', () => {
    const sources = readdirSync(join(import.meta.dirname, '..', 'src'), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.astro'));
    for (const path of sources) {
      expect(readFileSync(join(import.meta.dirname, '..', 'src', path), 'utf8'), path).not.toMatch(/set:html|set:text/);
    }
  });
});

describe('rebuilds and incremental renders', () => {
  it('renders the same database into byte-identical files, whenever it runs', async () => {
    const db = openFixtureDatabase();
    const first = await buildFixtureSite(db);
    const second = await buildFixtureSite(db, { now: () => new Date(FIXTURE_NOW.getTime() + 3 * 86_400_000) });
    try {
      const files = (root: string) => readdirSync(root, { recursive: true, encoding: 'utf8' })
        .filter((path) => !path.startsWith('.') && statSync(join(root, path)).isFile()).sort();
      const paths = files(first.distDir);
      expect(paths.length).toBeGreaterThan(20);
      expect(files(second.distDir)).toEqual(paths);
      for (const path of paths) {
        expect(readFileSync(join(second.distDir, path)).equals(readFileSync(join(first.distDir, path))), path).toBe(true);
      }
      expect(read(first, 'services/alpha-example-com/index.html')).toContain('Data as of 2026-11-01 11:59 UTC.');
    } finally {
      first.remove();
      second.remove();
    }
  });

  it('renders again only the services that changed, and removes those that left', async () => {
    const db = openFixtureDatabase();
    const site = await buildFixtureSite(db);
    try {
      const mtime = (path: string) => statSync(join(site.distDir, path)).mtimeMs;
      const untouched = ['services/alpha-example-com/index.html', 'snapshots/services/alpha-example-com.json', 'services/many-example-com/endpoints/3/index.html'];
      const before = untouched.map(mtime);
      expect(await refreshSite(db, site.options)).toMatchObject({ rendered: 0, removed: 0 });

      for (const probe of makeProbes('fresh-example-com', 2, () => ({ ok: true }))) recordProbe(db, probe);
      upsertServices(db, [makeService({ id: 'new-example-com', name: 'Newly Found' })], FIXTURE_NOW.toISOString());
      db.prepare(`DELETE FROM services WHERE id = 'down-example-com'`).run();
      const result = await refreshSite(db, site.options);
      expect(result).toMatchObject({ rendered: 2, removed: 1 });
      expect(result.seconds).toBeLessThan(5);

      expect(pageText(site, 'services/fresh-example-com/index.html')).toContain('2 of the last 2 checks detected a challenge');
      expect(pageText(site, 'services/new-example-com/index.html')).toContain('Newly Found');
      expect(existsSync(join(site.distDir, 'services/down-example-com'))).toBe(false);
      expect(existsSync(join(site.distDir, 'snapshots/services/down-example-com.json'))).toBe(false);
      expect(pageText(site, 'index.html')).toContain('Showing 1–6 of 6 services');
      expect(JSON.parse(read(site, 'snapshots/services.json')).services.map((s: { id: string }) => s.id)).toContain('new-example-com');
      expect(JSON.parse(read(site, 'snapshots/services/fresh-example-com.json')).live).toBe(true);
      expect(untouched.map(mtime)).toEqual(before);
      expect(readdirSync(join(site.distDir, 'services', 'fresh-example-com')).filter((name) => name.includes('.tmp-'))).toEqual([]);
    } finally {
      site.remove();
    }
  });

  it('renders /facilitators after a pass whose facilitator checks changed no service', async () => {
    const db = openFixtureDatabase();
    const site = await buildFixtureSite(db);
    try {
      expect(pageText(site, 'facilitators/index.html')).toContain('No facilitator seen yet');
      noteFacilitators(db, [{ url: 'https://x402.org/facilitator', seenIn: 'directory' }], FIXTURE_NOW.toISOString());
      recordFacilitatorCheck(db, 'https://x402.org/facilitator', FIXTURE_NOW.toISOString(), { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }], extensions: [] });
      expect(await refreshSite(db, site.options)).toMatchObject({ rendered: 0, removed: 0 });
      expect(pageText(site, 'facilitators/index.html')).toContain('v2 exact eip155:84532');
    } finally {
      site.remove();
    }
  });

  it("rebuilds after one service's state changed rewrite only its files and the pages that list it", async () => {
    const db = openFixtureDatabase();
    // A service whose feed holds no change (the log keeps 90 days).
    db.prepare(`DELETE FROM changes WHERE service_id = 'shop-example'`).run();
    const first = await buildFixtureSite(db);
    // Down answers a challenge again: it went live, a change of what its page says.
    recordProbe(db, { ...makeProbes('down-example-com', 1, () => ({ ok: true }))[0]!, probed_at: minutesAfter(5) });
    const second = await buildFixtureSite(db, { now: () => new Date(FIXTURE_NOW.getTime() + 86_400_000) });
    try {
      const paths = listFiles(first.distDir);
      expect(listFiles(second.distDir)).toEqual(paths);
      const rewritten = paths.filter((path) => !readFileSync(join(second.distDir, path)).equals(readFileSync(join(first.distDir, path))));
      expect(rewritten.sort()).toEqual([
        'changes/index.html', 'feed.json', 'feed.xml', 'index.html', 'llms.txt',
        'services/down-example-com/feed.json', 'services/down-example-com/feed.xml', 'services/down-example-com/index.html',
        'snapshots/services.json', 'snapshots/services/down-example-com.json', 'snapshots/stats.json',
      ]);
      // A feed without changes of its own is dated by its service's first indexing, never by the build or the index's data.
      const shopFeed = read(second, 'services/shop-example/feed.xml');
      expect(shopFeed).not.toContain('<entry>');
      expect(shopFeed).toContain(`<updated>${new Date(FIXTURE_NOW.getTime() - 40 * 86_400_000).toISOString()}</updated>`);
      expect(pageText(second, 'services/down-example-com/index.html')).toContain(`History as of 2026-11-01 12:05 UTC.`);
    } finally {
      first.remove();
      second.remove();
    }
  });

  it('renders a page again at once when its state changes, and when only checked once its history is due', async () => {
    const db = openFixtureDatabase();
    const site = await buildFixtureSite(db);
    try {
      const probed = ['alpha-example-com', 'down-example-com', 'dual-example-com'];
      const pass = (minutes: number, ok: (id: string) => boolean) => {
        for (const id of probed) recordProbe(db, { ...makeProbes(id, 1, () => ({ ok: ok(id) }))[0]!, probed_at: minutesAfter(minutes) });
      };
      const alphaBefore = read(site, 'services/alpha-example-com/index.html');
      expect(toText(alphaBefore)).toContain('History as of 2026-11-01 11:59 UTC.');

      // Every service checked, one (down) going live: it is rendered at once, the others when their history is due.
      pass(1, () => true);
      const due = probed.filter((id) => isHistoryDue(id, minutesAfter(-1), minutesAfter(1)));
      const result = await refreshSite(db, site.options);
      expect(result.rendered).toBe(new Set(['down-example-com', ...due]).size);
      expect(pageText(site, 'services/down-example-com/index.html')).toContain('Challenge detected on the last check, 2026-11-01 12:01 UTC');
      if (!due.includes('alpha-example-com')) expect(read(site, 'services/alpha-example-com/index.html')).toBe(alphaBefore);

      // Half an hour on, with no change of state, every checked page has its history rendered again.
      pass(31, () => true);
      expect(await refreshSite(db, site.options)).toMatchObject({ rendered: 3 });
      const alpha = pageText(site, 'services/alpha-example-com/index.html');
      expect(alpha).toContain('History as of 2026-11-01 12:31 UTC.');
      expect(alpha).toContain('Last checked 2026-11-01 12:31 UTC');
    } finally {
      site.remove();
    }
  });

  it("shows a directory's new description when the service's history interval ends, though nothing follows it", async () => {
    const db = openFixtureDatabase();
    const site = await buildFixtureSite(db);
    try {
      const alpha = FIXTURE_SERVICES.find((service) => service.id === 'alpha-example-com')!;
      upsertServices(db, [{ ...alpha, description: 'Weather, now from a new directory text.' }], minutesAfter(1));
      await refreshSite(db, site.options);
      const dueAtOnce = isHistoryDue('alpha-example-com', minutesAfter(-1), minutesAfter(1));
      expect(pageText(site, 'services/alpha-example-com/index.html').includes('new directory text')).toBe(dueAtOnce);
      // Another service's check moves the data's clock past alpha's interval: its page follows its write.
      recordProbe(db, { ...makeProbes('dual-example-com', 1, () => ({ ok: true }))[0]!, probed_at: minutesAfter(40) });
      await refreshSite(db, site.options);
      expect(pageText(site, 'services/alpha-example-com/index.html')).toContain('Weather, now from a new directory text.');
    } finally {
      site.remove();
    }
  });

  it('removes endpoint pages past the last when a host lists fewer endpoints', async () => {
    const db = openFixtureDatabase();
    const site = await buildFixtureSite(db);
    try {
      const many = db.prepare(`DELETE FROM service_endpoints WHERE service_id = 'many-example-com' AND position >= 60`).run();
      expect(many.changes).toBe(140);
      await renderChanged(db, ['many-example-com'], site.options);
      expect(existsSync(join(site.distDir, 'services/many-example-com/endpoints/2/index.html'))).toBe(true);
      expect(existsSync(join(site.distDir, 'services/many-example-com/endpoints/3'))).toBe(false);
      expect(pageText(site, 'services/many-example-com/endpoints/2/index.html')).toContain('Showing 51–60 of 60 endpoints');
    } finally {
      site.remove();
    }
  });

  it('swaps releases atomically, keeps the previous one, and leaves the served site alone when a build fails', async () => {
    const db = openFixtureDatabase();
    const site = await buildFixtureSite(db);
    try {
      const first = readlinkSync(site.distDir);
      // What a killed build leaves behind: a half-written release nobody points to.
      mkdirSync(join(releasesDirOf(site.distDir), '20000101T000000Z-1', 'services'), { recursive: true });
      await (await buildSite(db, { ...site.options, now: () => new Date(FIXTURE_NOW.getTime() + 1000) })).pruned;
      const second = readlinkSync(site.distDir);
      expect(second).not.toBe(first);
      expect(readdirSync(releasesDirOf(site.distDir)).sort()).toEqual([first, second].map((link) => link.split('/')[1]).sort());

      upsertServices(db, [makeService({ id: 'Not/A/Slug' })], FIXTURE_NOW.toISOString());
      await expect(buildSite(db, { ...site.options, now: () => new Date(FIXTURE_NOW.getTime() + 2000) })).rejects.toThrow(/not a slug/);
      expect(readlinkSync(site.distDir)).toBe(second);
      expect(pageText(site, 'index.html')).toContain('Showing 1–6 of 6 services');
    } finally {
      site.remove();
    }
  });

  it('builds when missing, refreshes when the data moved, rebuilds when the site URL changed', async () => {
    const db = openFixtureDatabase();
    const site = await buildFixtureSite(db);
    try {
      const app = createSite(db, site.options);
      expect(await app.ensureBuilt()).toBe('fresh');
      recordProbe(db, makeProbes('fresh-example-com', 1, () => ({ ok: true }))[0]!);
      expect(await app.ensureBuilt()).toBe('refreshed');
      expect(await createSite(db, { ...site.options, siteUrl: 'https://elsewhere.test' }).ensureBuilt()).toBe('built');
      expect(read(site, 'robots.txt')).toContain('https://elsewhere.test/sitemap.xml');
      const empty = createSite(db, { ...site.options, distDir: join(site.dir, 'other') });
      expect(await empty.ensureBuilt()).toBe('built');
      expect(existsSync(join(site.dir, 'other', 'index.html'))).toBe(true);
      const filtered = await app.renderHome(new URLSearchParams('rail=mpp'));
      expect(toText(filtered!)).toContain('Showing 1–2 of 2 services matching');
      expect(await app.renderHome(new URLSearchParams(''))).toBeNull();
    } finally {
      site.remove();
    }
  });
});
