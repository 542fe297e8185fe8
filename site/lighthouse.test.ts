import { createServer } from 'node:net';
import lighthouse, { desktopConfig } from 'lighthouse';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, serveApp } from '../api/app.ts';
import { testConfig } from '../api/testing.ts';
import { createSite } from './build/site.ts';
import { buildFixtureSite, FIXTURE_NOW, openFixtureDatabase, type FixtureSite } from './testing.ts';
import { CHROMIUM } from './browser-testing.ts';

/**
 * Lighthouse 12.2.3 (13 needs Node 22) in Debian's chromium on the home page, a listing page, /docs, /check and the
 * approval page, in light and in dark: every category scores at least 95. One chromium per colour scheme (a
 * Blink setting makes prefers-color-scheme dark for every tab Lighthouse opens), each reused for every page.
 * Lighthouse's desktop settings for all five, and its mobile ones (a phone's screen, a slow network and a CPU slowed
 * fourfold, simulated) for the home, a listing, /docs and /check, where a phone's reader lands.
 */
const MIN_SCORE = 0.95;
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const SCHEMES = { light: '1', dark: '0' } as const;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    }).on('error', reject);
  });
}

let site: FixtureSite;
let origin = '';
let closeServer: () => Promise<void>;
const browsers: Array<{ scheme: keyof typeof SCHEMES; browser: Browser; port: number }> = [];
let approvalPath = '';

beforeAll(async () => {
  const db = openFixtureDatabase();
  site = await buildFixtureSite(db);
  const pages = createSite(db, site.options);
  const server = serveApp(createApp({ db, config: testConfig(), now: () => FIXTURE_NOW, site: { distDir: site.distDir, renderHome: pages.renderHome, renderPurchase: pages.renderPurchase } }), {
    hostname: '127.0.0.1',
    port: 0,
  });
  await server.ready();
  closeServer = () => server.close(true);
  origin = new URL(server.url!).origin;
  const purchase = await (await fetch(`${origin}/api/v1/purchases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: 'index-demo-web-search', params: { query_id: 'base-sepolia-faucet' } }),
  })).json() as { id: string };
  approvalPath = `/purchase/${purchase.id}`;
  for (const scheme of Object.keys(SCHEMES) as Array<keyof typeof SCHEMES>) {
    const port = await freePort();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', `--remote-debugging-port=${port}`, `--blink-settings=preferredColorScheme=${SCHEMES[scheme]}`],
    });
    browsers.push({ scheme, browser, port });
  }
}, 120_000);
afterAll(async () => {
  for (const { browser } of browsers) await browser.close();
  await closeServer?.();
  site?.remove();
});

describe('Lighthouse', () => {
  it('scores every category at least 95 on the home, a listing, /docs, /check and the approval page, on desktop and phone, in light and dark', async () => {
    const pages: Array<[string, string, string[], 'desktop' | 'mobile']> = [
      ['home', '/', [], 'desktop'],
      ['listing', '/services/alpha-example-com', [], 'desktop'],
      ['docs', '/docs', [], 'desktop'],
      ['check', '/check', [], 'desktop'],
      // The approval page is kept out of search engines on purpose (noindex): that one SEO audit does not apply.
      ['approval', approvalPath, ['is-crawlable'], 'desktop'],
      ['home', '/', [], 'mobile'],
      ['listing', '/services/alpha-example-com', [], 'mobile'],
      ['docs', '/docs', [], 'mobile'],
      ['check', '/check', [], 'mobile'],
    ];
    const failures: string[] = [];
    for (const { scheme, port } of browsers) {
      for (const [page, path, skipAudits, form] of pages) {
        const name = `${page} ${form} (${scheme})`;
        const flags = { port, output: 'json' as const, logLevel: 'error' as const, onlyCategories: CATEGORIES, skipAudits };
        const audit = async () => {
          const lhr = (await lighthouse(`${origin}${path}`, flags, form === 'desktop' ? desktopConfig : undefined))!.lhr;
          expect(lhr.runtimeError, name).toBeUndefined();
          return CATEGORIES.flatMap((category) => {
            const { score } = lhr.categories[category]!;
            if (score !== null && score >= MIN_SCORE) return [];
            const failed = Object.values(lhr.audits).filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== 'informative')
              .map((audit) => audit.id).slice(0, 8);
            return [`${name} ${category}: ${score} [${failed.join(', ')}]`];
          });
        };
        // The mobile settings slow the CPU fourfold in the simulation, so on this shared 2-core machine a busy moment
        // can cost a page its blocking-time score: a page below the line is audited once more, and fails only twice.
        const first = await audit();
        failures.push(...(first.length > 0 && form === 'mobile' ? await audit() : first));
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
