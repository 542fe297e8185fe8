import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, serveApp } from '../api/app.ts';
import { testConfig } from '../api/testing.ts';
import type { DB } from '../data/db.ts';
import { recordEndpointChecks } from '../data/endpoint-checks.ts';
import { recordProbe } from '../data/probes.ts';
import { FLAG_EXPLANATIONS } from '../domain/values.ts';
import { makeService } from '../data/testing.ts';
import { PROJECT_ROOT } from '../project.ts';
import { createSite } from './build/site.ts';
import {
  buildFixtureSite, FIXTURE_NOW, makeHostileProbes, makeHostileServices, makeProbes, openFixtureDatabase, SITE_URL, XSS_PAYLOADS, type FixtureSite,
} from './testing.ts';
import { CHROMIUM, CHROMIUM_ARGS, AXE_SOURCE } from './browser-testing.ts';

/**
 * The site in a real browser: Debian's chromium driven by playwright-core, against the real app serving a
 * built fixture site over a socket. Chromium must be installed (`npm test` runs scripts/ensure-chromium.sh).
 */
const ARTIFACTS = join(PROJECT_ROOT, 'test-artifacts', 'site');
const WIDTHS = [390, 1280] as const;

interface Served {
  db: DB;
  site: FixtureSite;
  origin: string;
  close(): Promise<void>;
}

async function serveSite(db: DB): Promise<Served> {
  const site = await buildFixtureSite(db);
  const pages = createSite(db, site.options);
  const app = createApp({ db, config: testConfig(), now: () => FIXTURE_NOW, site: { distDir: site.distDir, renderHome: pages.renderHome, renderPurchase: pages.renderPurchase } });
  const server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  return {
    db,
    site,
    origin: new URL(server.url!).origin,
    close: async () => {
      await server.close(true);
      site.remove();
    },
  };
}

/** A page that records console errors and uncaught exceptions. */
async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('dialog', (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, errors };
}

let browser: Browser;
let main: Served;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash scripts/ensure-chromium.sh\` (as root: apt-get install -y chromium)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  [browser, main] = await Promise.all([
    chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
    serveSite(openFixtureDatabase()),
  ]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await main?.close();
});

describe('the site in chromium', () => {
  it('searches and filters the home page through the list API, and the URL follows', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await openPage(context);
    await page.goto(`${main.origin}/`);
    await page.waitForSelector('form.search[data-enhanced="on"]');
    await expect.poll(() => page.locator('#results > li').count()).toBe(6);

    const typed = page.waitForResponse((response) => response.url().includes('/api/v1/services?') && response.url().includes('q=weather'));
    await page.getByLabel('Search name, category, description or endpoint').fill('weather');
    await typed;
    await expect.poll(() => page.locator('#results > li').count()).toBe(1);
    expect(await page.locator('#results .name').first().textContent()).toBe('Alpha Weather');
    expect(await page.locator('#results-status .status-line').textContent()).toBe('Showing 1 of 1 service matching');
    expect(new URL(page.url()).search).toBe('?q=weather');
    expect(await page.title()).toBe('\u2068weather\u2069 · Payable-Service Index');

    await page.getByLabel('Search name, category, description or endpoint').fill('');
    await page.getByLabel('Rail').selectOption('mpp');
    await expect.poll(() => page.locator('#results > li').count()).toBe(2);
    await page.getByLabel('Challenge detected only').check();
    await expect.poll(() => page.locator('#results > li').count()).toBe(1);
    expect(await page.locator('#results .name').textContent()).toBe('Dual Rail Data');
    expect(new URL(page.url()).search).toBe('?rail=mpp&live=true');
    expect(await page.title()).toBe('\u2068MPP\u2069 · challenge detected · Payable-Service Index');
    const submitted = page.waitForResponse((response) => response.url().includes('/api/v1/services?'));
    await page.getByRole('button', { name: 'Search' }).click();
    await submitted;
    expect(new URL(page.url()).search, 'the empty search and chain and asset fields are left out').toBe('?rail=mpp&live=true');

    await page.locator('a[data-facet="rail"][data-value="mpp"]').click();
    await expect.poll(() => new URL(page.url()).search).toBe('?live=true');
    await expect.poll(() => page.locator('#results > li').count()).toBe(2);
    expect(await page.title()).toBe('challenge detected · Payable-Service Index');
    await page.goBack();
    await expect.poll(() => page.locator('#results > li').count()).toBe(1);
    expect(await page.getByLabel('Rail').inputValue()).toBe('mpp');
    expect(await page.title()).toBe('\u2068MPP\u2069 · challenge detected · Payable-Service Index');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('follows a service to its listing page and pages through its endpoints', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await openPage(context);
    await page.goto(`${main.origin}/`);
    await page.getByRole('link', { name: 'Many Tools Gateway' }).click();
    await page.waitForURL(`${main.origin}/services/many-example-com`);
    expect(await page.locator('h1').textContent()).toBe('Many Tools Gateway');
    expect(await page.locator('#endpoints-showing').textContent()).toBe('Showing 1–50 of 200 endpoints');
    await page.getByRole('navigation', { name: 'Endpoint pages' }).getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL(`${main.origin}/services/many-example-com/endpoints/2`);
    expect(await page.locator('#endpoints-showing').textContent()).toBe('Showing 51–100 of 200 endpoints');
    await page.getByRole('link', { name: 'Page 4' }).click();
    expect(await page.locator('#endpoints-showing').textContent()).toBe('Showing 151–200 of 200 endpoints');
    expect(await page.locator('tbody tr').count()).toBe(50);
    await page.getByRole('link', { name: 'Page 1' }).click();
    await page.waitForURL(`${main.origin}/services/many-example-com`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('filters with the form when JavaScript is off', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const { page, errors } = await openPage(context);
    await page.goto(`${main.origin}/`);
    await page.getByLabel('Rail').selectOption('mpp');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\?/);
    expect(new URL(page.url()).search, 'the form submits its empty fields').toBe('?q=&rail=mpp&chain=&asset=&category=&source=&max_price_usd=&sort=quality');
    expect(await page.locator('#results > li').count()).toBe(2);
    expect(await page.title()).toBe('\u2068MPP\u2069 · Payable-Service Index');
    expect(await page.locator('link[rel="canonical"]').getAttribute('href')).toBe(`${SITE_URL}/?rail=mpp`);
    await page.getByRole('link', { name: 'ACP' }).first().click();
    expect(await page.locator('#results .name').allTextContents()).toEqual(['Example Shop']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sorts cheapest first under a price limit, with JavaScript through the list API and without it through the form', async () => {
    // By each service's cheapest endpoint: Alpha Weather lists a free one.
    const cheapest = ['Alpha Weather', 'Many Tools Gateway', 'Dual Rail Data', 'Fresh Scraper'];
    const scripted = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    {
      const { page, errors } = await openPage(scripted);
      await page.goto(`${main.origin}/`);
      await page.waitForSelector('form.search[data-enhanced="on"]');
      const sorted = page.waitForResponse((response) => response.url().includes('/api/v1/services?') && response.url().includes('sort=price'));
      await page.getByLabel('Sort by').selectOption({ label: 'Cheapest' });
      expect(new URL((await sorted).url()).searchParams.get('sort')).toBe('price');
      await expect.poll(() => page.locator('#results .name').allTextContents())
        .toEqual([...cheapest, 'Down Search', 'Example Shop']);
      expect(new URL(page.url()).search).toBe('?sort=price');

      const limited = page.waitForResponse((response) => response.url().includes('max_price_usd=0.01'));
      await page.getByLabel('Max price per call (USD)').fill('0.01');
      await page.getByLabel('Max price per call (USD)').press('Enter');
      const api = new URL((await limited).url()).searchParams;
      expect([api.get('max_price_usd'), api.get('sort')]).toEqual(['0.01', 'price']);
      await expect.poll(() => page.locator('#results .name').allTextContents()).toEqual(cheapest);
      expect(new URL(page.url()).search).toBe('?max_price_usd=0.01&sort=price');
      expect(await page.locator('#results-status .status-line').textContent()).toBe('Showing 1–4 of 4 services matching');
      expect(await page.title()).toBe('at most $0.01 per call · cheapest first · Payable-Service Index');
      // Each row shows the price the order reads: its cheapest endpoint's, "from" it when its endpoints' prices differ.
      expect((await page.locator('#results .price').allTextContents()).slice(0, 2)).toEqual(['from $0', 'from $0.001']);
      expect(await page.locator('#results li').nth(1).locator('.price').getAttribute('title')).toBe('$0.001 to $0.199 across its endpoints');

      // A reload is rendered by the server from the URL, in the same order with the same form values.
      await page.reload();
      expect(await page.locator('#results .name').allTextContents()).toEqual(cheapest);
      expect((await page.locator('#results .price').allTextContents()).slice(0, 2)).toEqual(['from $0', 'from $0.001']);
      expect(await page.getByLabel('Sort by').inputValue()).toBe('price');
      expect(await page.getByLabel('Max price per call (USD)').inputValue()).toBe('0.01');
      await page.waitForSelector('form.search[data-enhanced="on"]');
      await page.getByLabel('Sort by').selectOption('quality');
      await expect.poll(() => new URL(page.url()).search).toBe('?max_price_usd=0.01');
      // Best first: the live ones by 30-day uptime, then the others.
      await expect.poll(() => page.locator('#results .name').allTextContents())
        .toEqual(['Dual Rail Data', 'Alpha Weather', 'Fresh Scraper', 'Many Tools Gateway']);
      await page.goBack();
      await expect.poll(() => page.locator('#results .name').allTextContents()).toEqual(cheapest);
      expect(await page.getByLabel('Sort by').inputValue()).toBe('price');
      expect(errors).toEqual([]);
    }
    await scripted.close();

    const plain = await browser.newContext({ javaScriptEnabled: false });
    {
      const { page, errors } = await openPage(plain);
      await page.goto(`${main.origin}/`);
      await page.getByLabel('Sort by').selectOption({ label: 'Cheapest' });
      await page.getByLabel('Max price per call (USD)').fill('0.01');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/\?/);
      expect(new URL(page.url()).search).toBe('?q=&rail=&chain=&asset=&category=&source=&max_price_usd=0.01&sort=price');
      expect(await page.locator('#results .name').allTextContents()).toEqual(cheapest);
      expect(await page.getByLabel('Sort by').inputValue()).toBe('price');
      expect(await page.getByLabel('Max price per call (USD)').inputValue()).toBe('0.01');
      expect(await page.locator('link[rel="canonical"]').getAttribute('href')).toBe(`${SITE_URL}/?max_price_usd=0.01&sort=price`);
      expect(await page.locator('#results-pager > *').allTextContents(), 'no more pages').toEqual(['Page 1 of 1']);

      await page.getByLabel('Directory').selectOption('mpp.dev');
      await page.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('source')).toBe('mpp.dev');
      expect(await page.locator('#results .name').allTextContents()).toEqual(['Many Tools Gateway']);

      // A sort or price the API would refuse is ignored, not an error page.
      const response = await page.goto(`${main.origin}/?sort=cheapest&max_price_usd=-1&source=nowhere&category=COMMERCE`);
      expect(response?.status()).toBe(200);
      expect(await page.locator('#results .name').allTextContents()).toEqual(['Example Shop']);
      expect(await page.getByLabel('Sort by').inputValue()).toBe('quality');
      expect(await page.getByLabel('Max price per call (USD)').inputValue()).toBe('');
      expect(errors).toEqual([]);
    }
    await plain.close();
  }, 30_000);

  it('past the last page offers the first page, never a Previous link to another empty one, from the server and from the script', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await openPage(context);
    const pagerItems = () => page.locator('#results-pager > *').evaluateAll((items) => items.map((item) => [item.textContent, item.getAttribute('href')]));
    await page.goto(`${main.origin}/?offset=500`);
    expect(await page.locator('#results-status .status-line').textContent()).toBe('No services on this page; 6 services match.');
    expect(await pagerItems()).toEqual([['First page', '/'], ['No page 11: the last is page 1', null]]);

    await page.goto(`${main.origin}/?rail=x402`);
    await page.waitForSelector('form.search[data-enhanced="on"]');
    const loaded = page.waitForResponse((response) => response.url().includes('/api/v1/services?') && response.url().includes('offset=300'));
    await page.evaluate(() => {
      window.history.pushState(null, '', '/?rail=x402&offset=300');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await loaded;
    await expect.poll(pagerItems).toEqual([['First page', '/?rail=x402'], ['No page 7: the last is page 1', null]]);
    await page.locator('#results-pager a').click();
    await expect.poll(() => page.locator('#results > li').count()).toBe(4);
    expect(await pagerItems()).toEqual([['Page 1 of 1', null]]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps screenshots of every page kind at 390 and 1280 px in light and dark, with no serious accessibility violations', async () => {
    const purchase = await (await fetch(`${main.origin}/api/v1/purchases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 'index-demo-web-search', params: { query_id: 'base-sepolia-faucet' } }),
    })).json() as { id: string };
    const pages = [
      ['home', '/'], ['listing', '/services/alpha-example-com'], ['failing', '/services/down-example-com'],
      ['not-checked', '/services/fresh-example-com'], ['acp', '/services/shop-example'], ['endpoints', '/services/many-example-com/endpoints/2'],
      ['docs', '/docs'], ['status', '/status'], ['approval', `/purchase/${purchase.id}`], ['not-found', '/no-such-page'],
    ] as const;
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of WIDTHS) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true, colorScheme: scheme });
        const { page, errors } = await openPage(context);
        for (const [name, path] of pages) {
          await page.goto(`${main.origin}${path}`);
          if (name === 'approval') await expect.poll(() => page.locator('#purchase').isVisible()).toBe(true);
          expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(scheme === 'dark');
          await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}-${scheme}.png`), fullPage: true });
          // Contrast depends on the scheme, not the width; the layout on the width: each is checked where it can fail.
          if (width === 1280 || scheme === 'light') {
            await page.addScriptTag({ content: AXE_SOURCE });
            const violations = await page.evaluate(async () => {
              const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
              const result = await axe.run(document, { resultTypes: ['violations'] });
              return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
            });
            expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), `${name} at ${width} px, ${scheme}`).toEqual([]);
          }
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
        }
        // The 404 page is itself answered with status 404, which chromium reports on the console.
        expect(errors.filter((error) => !error.includes('status of 404'))).toEqual([]);
        await context.close();
      }
    }
  }, 150_000);
});

/** U+202E RIGHT-TO-LEFT OVERRIDE in every text a directory gives: it must not reorder the page around it. */
const RLO = '\u202E';
const BIDI_ENDPOINT = `https://bidi.example.com/${RLO}pay`;
const BIDI_SERVICE = makeService({
  id: 'bidi-example-com',
  name: `Bidi ${RLO}Name`,
  description: `Bidi ${RLO}description`,
  category: `cat${RLO}egory`,
  endpoint: BIDI_ENDPOINT,
  facilitator: `https://facilitator.example.com/${RLO}x`,
  price: { usd: 0.01, display: `$0.01 ${RLO}per call` },
  chains: ['base', `ch${RLO}ain`],
  assets: ['USDC', `as${RLO}set`],
  sources: [{ source: 'bazaar', url: `https://directory.example.com/${RLO}list` }],
  endpoints: [
    { url: BIDI_ENDPOINT, method: 'GET', description: `End${RLO}point`, price: { usd: 0.01, display: null }, rails: ['x402'], chains: ['base'], assets: ['USDC'] },
    { url: `https://other.example.com/${RLO}x`, method: 'POST', description: null, price: { usd: null, display: `x${RLO}y` }, rails: ['x402'], chains: [], assets: [] },
  ],
});

describe('hostile directory data in chromium', () => {
  let hostile: Served;
  beforeAll(async () => {
    const db = openFixtureDatabase([...makeHostileServices(), BIDI_SERVICE]);
    for (const probe of makeHostileProbes()) recordProbe(db, probe);
    for (const probe of makeProbes(BIDI_SERVICE.id, 2, (n) => (n === 1 ? { ok: false, reason: `no ${RLO}challenge` } : { ok: true }))) recordProbe(db, probe);
    hostile = await serveSite(db);
  }, 60_000);
  afterAll(async () => {
    await hostile?.close();
  });

  /** Whatever in the page could run code or lead off-site unmarked; empty when the page is safe. */
  const findProblems = (page: Page) =>
    page.evaluate(() => {
      const problems: string[] = [];
      const allowedTags = new Set(['HTML', 'HEAD', 'META', 'TITLE', 'LINK', 'BODY', 'A', 'HEADER', 'NAV', 'UL', 'OL', 'LI', 'MAIN', 'ARTICLE',
        'P', 'H1', 'H2', 'H3', 'SPAN', 'DL', 'DT', 'DD', 'DIV', 'SECTION', 'PRE', 'CODE', 'FIGURE', 'FIGCAPTION', 'TABLE', 'CAPTION', 'THEAD',
        'TBODY', 'TR', 'TH', 'TD', 'TIME', 'FORM', 'LABEL', 'INPUT', 'SELECT', 'OPTION', 'BUTTON', 'FOOTER', 'SCRIPT', 'svg', 'g', 'line',
        'text', 'path', 'circle', 'rect', 'title', 'BDI', 'DETAILS', 'SUMMARY']);
      if ((window as unknown as { __xss?: unknown }).__xss !== undefined) problems.push(`payload ran: ${(window as unknown as { __xss: unknown }).__xss}`);
      for (const element of document.querySelectorAll('*')) {
        // The one image: the listing page's own live badge, from its origin.
        const badge = element.tagName === 'IMG' && element.classList.contains('live-badge') && element.getAttribute('src')?.startsWith('/badge/');
        if (!allowedTags.has(element.tagName) && !badge) problems.push(`unexpected <${element.tagName}>`);
        if (element.tagName === 'svg' && !element.matches('.chart, .uptime-bar, .brand svg')) problems.push('an <svg> that is not a chart, an uptime bar or the wordmark');
        for (const attribute of element.attributes) {
          if (attribute.name.toLowerCase().startsWith('on')) problems.push(`<${element.tagName} ${attribute.name}>`);
          if (['href', 'src', 'xlink:href', 'action', 'formaction'].includes(attribute.name)) {
            const value = attribute.value.trim();
            if (!/^(https?:\/\/|\/(?!\/)|#)/i.test(value)) problems.push(`<${element.tagName} ${attribute.name}="${value}">`);
          }
        }
      }
      for (const script of document.scripts) {
        if (!script.src || !new URL(script.src).pathname.startsWith('/_astro/')) problems.push(`script ${script.outerHTML.slice(0, 60)}`);
      }
      for (const link of document.querySelectorAll('a[href]')) {
        const url = new URL((link as HTMLAnchorElement).href);
        if (url.origin !== location.origin && !/\bnofollow\b/.test(link.getAttribute('rel') ?? '')) problems.push(`unmarked link ${url.href}`);
        if (url.origin !== location.origin && !/\bnoopener\b/.test(link.getAttribute('rel') ?? '')) problems.push(`link without noopener ${url.href}`);
      }
      return problems;
    });

  it(`runs none of ${XSS_PAYLOADS.length} payloads and links none of them, in pages or in search results`, async () => {
    // The content policy is bypassed so that escaping alone is what stops the payloads.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const { page, errors } = await openPage(context);
    const paths = ['/', '/?q=hostile', '/docs', ...XSS_PAYLOADS.map((_, k) => `/services/xss-${k}-example-com`)];
    for (const path of paths) {
      await page.goto(`${hostile.origin}${path}`);
      await page.mouse.move(200, 300);
      expect(await findProblems(page), path).toEqual([]);
    }
    await page.goto(`${hostile.origin}/services/xss-0-example-com`);
    expect(await page.locator('h1').textContent()).toBe(`Hostile 0 ${XSS_PAYLOADS[0]}`);
    await page.goto(`${hostile.origin}/services/xss-4-example-com`);
    expect(await page.locator('body').textContent()).toContain(`Facilitator: ${XSS_PAYLOADS[4]}.`);

    await page.goto(`${hostile.origin}/`);
    await page.waitForSelector('form.search[data-enhanced="on"]');
    await page.getByLabel('Search name, category, description or endpoint').fill('hostile');
    await expect.poll(() => page.locator('#results > li').count()).toBe(XSS_PAYLOADS.length);
    expect(await findProblems(page)).toEqual([]);
    expect(await page.locator('#results .name').allTextContents()).toContain(`Hostile 1 ${XSS_PAYLOADS[1]}`);
    for (const facet of ['chain', 'asset']) {
      await page.locator(`a[data-facet="${facet}"]`).last().click();
      await expect.poll(() => new URL(page.url()).searchParams.has(facet)).toBe(true);
      expect(await findProblems(page)).toEqual([]);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  /** Text holding U+202E that is not alone in an element isolating it (or, in a <title> or <option>, not within FSI…PDI). */
  const findUnisolated = (page: Page) =>
    page.evaluate((rlo) => {
      const problems: string[] = [];
      const bare = (text: string) => text.replace(/\u2068[^\u2068\u2069]*\u2069/g, '').includes(rlo);
      if (bare(document.title)) problems.push(`title: ${document.title}`);
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.nodeValue ?? '';
        const parent = node.parentElement!;
        if (!text.includes(rlo) || parent.tagName === 'SCRIPT') continue;
        const isolated = parent.tagName === 'OPTION'
          ? !bare(text)
          : getComputedStyle(parent).unicodeBidi === 'isolate' && parent.childNodes.length === 1;
        if (!isolated) problems.push(`<${parent.tagName.toLowerCase()}${parent.className ? `.${parent.className}` : ''}> ${JSON.stringify(text.slice(0, 40))}`);
      }
      return problems;
    }, RLO);

  it('isolates directory text, so a right-to-left override in it cannot reorder the page around it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await openPage(context);
    for (const path of ['/services/bidi-example-com', '/', '/?q=bidi', `/?q=${encodeURIComponent(`${RLO}Name`)}&chain=${encodeURIComponent(`ch${RLO}ain`)}`]) {
      await page.goto(`${hostile.origin}${path}`);
      expect(await page.content(), path).toContain(RLO);
      expect(await findUnisolated(page), path).toEqual([]);
    }
    await page.goto(`${hostile.origin}/`);
    await page.waitForSelector('form.search[data-enhanced="on"]');
    await page.getByLabel('Search name, category, description or endpoint').fill('bidi');
    await expect.poll(() => page.locator('#results > li').count()).toBe(1);
    expect(await page.locator('#results .name').textContent()).toBe(BIDI_SERVICE.name);
    expect(await findUnisolated(page)).toEqual([]);
    await page.locator('a[data-facet="chain"]').filter({ hasText: RLO }).click();
    await expect.poll(() => page.title()).toContain(RLO);
    expect(await findUnisolated(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('flags and endpoint checks in chromium', () => {
  const FLAGGED = makeService({
    id: 'flagged-example-com', name: 'Flagged Quotes', endpoint: 'https://flagged.example.com/quote', chains: ['base-sepolia'],
    endpoints: [
      { url: 'https://flagged.example.com/quote', method: 'GET', description: 'Quote', price: { usd: 0.01, display: null }, rails: ['x402'], chains: ['base-sepolia'], assets: ['USDC'] },
      { url: 'https://flagged.example.com/retired', method: 'GET', description: 'Retired', price: { usd: 0.01, display: null }, rails: ['x402'], chains: ['base-sepolia'], assets: ['USDC'] },
    ],
  });
  let flagged: Served;
  beforeAll(async () => {
    const db = openFixtureDatabase([FLAGGED]);
    for (const probe of makeProbes(FLAGGED.id, 2, () => ({ ok: true }))) recordProbe(db, { ...probe, flags: ['testnet_only', 'wildcard_402'] });
    recordEndpointChecks(db, [{
      service_id: FLAGGED.id, method: 'GET', url: 'https://flagged.example.com/retired', checked_at: '2026-11-01T06:00:00.000Z',
      ok: false, status_code: 404, latency_ms: 40, reason: 'answered 404',
    }]);
    flagged = await serveSite(db);
  }, 60_000);
  afterAll(async () => {
    await flagged?.close();
  });

  it('shows the flags with their explanations beside the result, each endpoint\'s last check, and a marker on the home row', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await openPage(context);
    await page.goto(`${flagged.origin}/services/${FLAGGED.id}`);
    expect(await page.locator('.status .badge').first().textContent()).toBe('Challenge detected');
    const flags = page.getByRole('note', { name: 'Flags' });
    expect(await flags.locator('li').allTextContents()).toEqual([
      `wildcard_402: ${FLAG_EXPLANATIONS.wildcard_402}`,
      `testnet_only: ${FLAG_EXPLANATIONS.testnet_only}`,
    ]);
    const checks = await page.locator('#endpoints ~ * td[data-label="Last check"], section[aria-labelledby="endpoints"] td[data-label="Last check"]').allTextContents();
    expect(checks[0]).toMatch(/^Challenge detected 2026-11-01 11:59 UTC · HTTP 402 · \d+ ms$/);
    expect(checks[1]).toBe('No challenge detected 2026-11-01 06:00 UTC · HTTP 404 · 40 ms: answered 404');

    // The home row's marker, rendered by the server and again by the script from the list API.
    await page.goto(`${flagged.origin}/?q=flagged`);
    const marker = page.locator('#results .flag-marker');
    expect(await marker.textContent()).toBe('⚑ 2 flags');
    expect(await marker.getAttribute('title')).toBe(`wildcard_402: ${FLAG_EXPLANATIONS.wildcard_402}\ntestnet_only: ${FLAG_EXPLANATIONS.testnet_only}`);
    await page.waitForSelector('form.search[data-enhanced="on"]');
    const typed = page.waitForResponse((response) => response.url().includes('/api/v1/services?') && response.url().includes('q=quotes'));
    await page.getByLabel('Search name, category, description or endpoint').fill('quotes');
    await typed;
    await expect.poll(() => page.locator('#results .flag-marker').textContent()).toBe('⚑ 2 flags');
    expect(errors).toEqual([]);
    await context.close();
  });
});
