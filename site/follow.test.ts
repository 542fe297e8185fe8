import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFeed } from '@rowanmanning/feed-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../data/db.ts';
import { recordProbes } from '../data/probes.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { refreshSite } from './build/refresh.ts';
import { buildFixtureSite, FIXTURE_NOW, openFixtureDatabase, SITE_URL, type FixtureSite } from './testing.ts';

/*
 * Following the index on the built site: Atom and JSON Feed documents of the change log (whole index and per
 * service), parsed with a real feed parser; the recent changes page; a listing page's changes, price history, badge
 * snippets and <link rel="alternate">; and feeds rebuilt with their pages after a pass.
 */

const at = (minutes: number) => new Date(FIXTURE_NOW.getTime() + minutes * 60_000).toISOString();
const HOSTILE = '<script>window.__xss=1</script>';
let db: DB;
let site: FixtureSite;
const read = (path: string) => readFileSync(join(site.distDir, path), 'utf8');

beforeAll(async () => {
  db = openFixtureDatabase();
  upsertServices(db, [makeService({ id: 'cheap-example-com', name: `Cheap ${HOSTILE}`, price: { usd: 0.01, display: '$0.01' } })], at(1));
  upsertServices(db, [makeService({ id: 'cheap-example-com', name: `Cheap ${HOSTILE}`, price: { usd: 0.02, display: '$0.02' } })], at(2));
  recordProbes(db, [{ service_id: 'cheap-example-com', probed_at: at(3), ok: true, status_code: 402, method: 'GET', latency_ms: 20, reason: null, detected_rails: ['x402'] }]);
  site = await buildFixtureSite(db);
}, 120_000);
afterAll(() => site?.remove());

describe('feeds', () => {
  it('/feed.xml is Atom 1.0 a feed parser reads, newest change first, with names escaped', () => {
    const xml = read('feed.xml');
    const feed = parseFeed(xml);
    expect(feed.meta.type).toBe('atom');
    expect(feed.title).toBe('Payable-Service Index: recent changes');
    expect(feed.items.length).toBeGreaterThanOrEqual(3);
    expect(feed.items[0]!.title).toBe('cheap-example-com went live');
    expect(feed.items[0]!.url).toBe(`${SITE_URL}/services/cheap-example-com`);
    expect(feed.items.map((item) => item.id)).toEqual([...new Set(feed.items.map((item) => item.id))]);
    expect(feed.items[1]!.description).toContain('changed its price from $0.01 to $0.02');
    expect(xml).not.toContain('<script>');
    expect(xml).toContain('&amp;#60;script&amp;#62;'.replace(/&amp;/g, '&'));
    expect(feed.self ?? feed.url).toBeTruthy();
  });

  it('/feed.json is JSON Feed 1.1 with its required fields', () => {
    const feed = JSON.parse(read('feed.json'));
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(feed).toMatchObject({ title: expect.any(String), home_page_url: `${SITE_URL}/`, feed_url: `${SITE_URL}/feed.json` });
    expect(feed.author).toBeUndefined();
    expect(feed.authors).toEqual([{ name: 'Payable-Service Index', url: `${SITE_URL}/` }]);
    expect(feed.items.length).toBeGreaterThanOrEqual(3);
    for (const item of feed.items) {
      expect(typeof item.id).toBe('string');
      expect(typeof item.content_text).toBe('string');
      expect(item.content_html).toBeUndefined();
      expect(Date.parse(item.date_published)).not.toBeNaN();
    }
    expect(feed.items[0].content_text).toBe(`Cheap ${HOSTILE} went live: its endpoint answers a payment challenge.`);
  });

  it('each service has its own feeds with only its changes', () => {
    const atom = parseFeed(read('services/cheap-example-com/feed.xml'));
    expect(atom.items.map((item) => item.title)).toEqual(['cheap-example-com went live', 'cheap-example-com price changed', 'cheap-example-com listed']);
    const json = JSON.parse(read('services/cheap-example-com/feed.json'));
    expect(json.items).toHaveLength(3);
    expect(json.feed_url).toBe(`${SITE_URL}/services/cheap-example-com/feed.json`);
  });
});

describe('pages', () => {
  it('the listing page links its feeds and shows its changes, price history and badge snippets', () => {
    const html = read('services/cheap-example-com/index.html');
    expect(html).toContain('<link rel="alternate" type="application/atom+xml" title="Changes (Atom)" href="/services/cheap-example-com/feed.xml">');
    expect(html).toContain('<link rel="alternate" type="application/feed+json" title="Changes (JSON Feed)" href="/services/cheap-example-com/feed.json">');
    expect(html).toMatch(/<h2 id="price-history">Price history<\/h2>[\s\S]*?\$0\.01<\/bdi><\/td>\s*<td data-label="To"><bdi>\$0\.02/);
    expect(html).toContain(`[![Payable-Service Index: cheap-example-com](${SITE_URL}/badge/cheap-example-com.svg)](${SITE_URL}/services/cheap-example-com)`);
    expect(html).toContain(`&lt;img src=&quot;${SITE_URL}/badge/cheap-example-com.svg&quot;`);
    const follow = html.slice(html.indexOf('<section aria-labelledby="changes">'), html.indexOf('<section aria-labelledby="qa">'));
    expect(follow).toContain('<bdi>Cheap &lt;script&gt;window.__xss=1&lt;/script&gt; changed its price from $0.01 to $0.02.</bdi>');
    expect(follow).not.toContain(HOSTILE);
  });

  it('the home page links the recent changes page, which lists the newest changes', () => {
    expect(read('index.html')).toContain('<a href="/changes">recent changes</a>');
    expect(read('index.html')).toContain('<link rel="alternate" type="application/atom+xml" title="Recent changes (Atom)" href="/feed.xml">');
    const changes = read('changes/index.html');
    expect(changes).toMatch(/data-type="went_live"[\s\S]*?href="\/services\/cheap-example-com"/);
    expect(changes).not.toContain(HOSTILE);
  });

  it('feeds follow the data: a pass that changes a service renders its feed and the index feed again', async () => {
    recordProbes(db, [{ service_id: 'cheap-example-com', probed_at: at(10), ok: false, status_code: 500, method: 'GET', latency_ms: 20, reason: 'server error', detected_rails: [] }]);
    await refreshSite(db, site.options);
    expect(parseFeed(read('services/cheap-example-com/feed.xml')).items[0]!.title).toBe('cheap-example-com went dark');
    expect(JSON.parse(read('feed.json')).items[0].title).toBe('cheap-example-com went dark');
    expect(read('services/cheap-example-com/index.html')).toMatch(/data-type="went_dark"/);
  });
});
