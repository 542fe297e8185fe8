import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_ID, CATALOG_NAME } from '../crawler/sources/catalog.ts';
import { finishCrawlRun, startCrawlRun } from '../data/crawl.ts';
import { recordProbe } from '../data/probes.ts';
import { submitService } from '../data/submissions.ts';
import { makeService } from '../data/testing.ts';
import { FIXTURE_NOW, makeProbes, openFixtureDatabase } from './testing.ts';
import { seriousViolations, servePagesInChromium } from './browser-testing.ts';

/**
 * What a newcomer meets first, in chromium against the real app serving a built fixture site over a socket: the home
 * page on a phone, the owners' way in, the approval page without JavaScript, the status page, and each of them at
 * 390 and 1280 px in both colour schemes with axe. Screenshots go to a temporary folder (printed) to look at.
 */
const SCREENSHOTS = mkdtempSync(join(tmpdir(), 'psi-newcomer-'));

/** The index's own catalog as a phone shows it: a long name, a long loopback endpoint, a description, a flag. */
const CATALOG = makeService({
  id: CATALOG_ID,
  name: CATALOG_NAME,
  description: 'Testnet purchase-preview demo services of the index itself, paid in Base Sepolia USDC over x402.',
  category: 'demo',
  endpoint: 'http://127.0.0.1:4321/api/demo/services/web-search?query_id=base-sepolia-faucet',
  chains: ['base-sepolia'],
  sources: [{ source: 'catalog', url: 'http://127.0.0.1:4321/api/v1/purchase' }],
});

let browser: Browser;
let origin: string;
let close: () => Promise<void>;
const db = openFixtureDatabase([CATALOG]);

beforeAll(async () => {
  for (const probe of makeProbes(CATALOG_ID, 3, (k) => ({ ok: k !== 2 }))) recordProbe(db, { ...probe, flags: ['testnet_only'] });
  // A pass around the fixture's probes of an hour ago.
  const run = startCrawlRun(db, 'full', new Date(FIXTURE_NOW.getTime() - 62 * 60_000).toISOString());
  finishCrawlRun(db, run, {
    finishedAt: new Date(FIXTURE_NOW.getTime() - 58 * 60_000).toISOString(),
    status: 'finished',
    counts: {
      discovery: {
        directories: [
          { kind: 'bazaar', url: 'https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources', endpoints: 12, skipped: 0, pages: 1, error: null },
          { kind: 'mpp', url: 'https://mpp.dev/api/services', endpoints: 0, skipped: 0, pages: 0, error: 'getaddrinfo ENOTFOUND mpp.dev' },
        ],
        services: { found: 7, new: 1, updated: 2 },
      },
    },
    errors: [],
  });
  ({ origin, browser, close } = await servePagesInChromium(db));
  console.log(`screenshots: ${SCREENSHOTS}`);
}, 180_000);
afterAll(async () => {
  await close?.();
});

const sidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function createPurchase(): Promise<string> {
  const response = await fetch(`${origin}/api/v1/purchases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: 'index-demo-web-search', params: { query_id: 'base-sepolia-faucet' } }),
  });
  return ((await response.json()) as { id: string }).id;
}

describe('a newcomer\'s first look, in chromium', { timeout: 120_000 }, () => {
  it('shows one readable card per service on a 390 px phone: whole-word names at least 180 px wide, the whole origin, the description', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    const firstName = await page.locator('#results > li .name').first().boundingBox();
    expect(firstName!.width).toBeGreaterThanOrEqual(180);
    const catalog = page.locator('#results > li', { has: page.locator(`a[href="/services/${CATALOG_ID}"]`) });
    const card = await catalog.evaluate((item) => {
      const name = item.querySelector('.name')!;
      const text = name.textContent!;
      // Each word of the name on one line: a word split across lines has two client rectangles.
      const brokenWords = [...text.matchAll(/\S+/g)].filter((word) => {
        const range = document.createRange();
        const node = name.querySelector('bdi')!.firstChild!;
        range.setStart(node, word.index!);
        range.setEnd(node, word.index! + word[0].length);
        return range.getClientRects().length !== 1;
      }).map((word) => word[0]);
      const host = item.querySelector<HTMLElement>('.host')!;
      const description = item.querySelector<HTMLElement>('.desc')!;
      return {
        nameWidth: name.getBoundingClientRect().width,
        brokenWords,
        host: host.textContent,
        hostOverflows: host.scrollWidth > host.clientWidth,
        descriptionHeight: description.getBoundingClientRect().height,
      };
    });
    expect(card.nameWidth).toBeGreaterThanOrEqual(180);
    expect(card.brokenWords).toEqual([]);
    expect(card.host, 'the whole origin, not cut by the box').toBe('http://127.0.0.1:4321');
    expect(card.hostOverflows).toBe(false);
    expect(card.descriptionHeight).toBeGreaterThan(10);
    expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);

    // The desktop keeps its table: one row per service, the columns under their heads.
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.locator('.results-head').isVisible()).toBe(true);
    const [nameBox, resultBox] = await Promise.all([catalog.locator('.who').boundingBox(), catalog.locator('.result').boundingBox()]);
    expect(Math.abs(nameBox!.y + nameBox!.height / 2 - (resultBox!.y + resultBox!.height / 2))).toBeLessThan(nameBox!.height);
    await context.close();
  });

  it('shows owners and sellers the way in: /submit and /owners from every page, "Claim this listing" on each listing', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    for (const path of ['/', '/services/alpha-example-com', '/status', '/docs', '/pricing', '/docs/purchase']) {
      const response = await page.goto(`${origin}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(await page.locator('header a[href="/submit"], footer a[href="/submit"]').count(), path).toBeGreaterThan(0);
      expect(await page.locator('header a[href="/owners"], footer a[href="/owners"]').count(), path).toBeGreaterThan(0);
      expect(await page.locator('footer a[href$=".md"]').count(), `${path}: the footer links pages, not raw Markdown`).toBe(0);
    }
    const navRows = await page.locator('header nav li').evaluateAll((items) => new Set(items.map((item) => Math.round(item.getBoundingClientRect().top))).size);
    expect(navRows, 'the navigation on one line at 390 px').toBe(1);
    await page.goto(`${origin}/services/alpha-example-com`);
    expect(await page.getByRole('link', { name: 'Is it yours?' }).getAttribute('href'), 'from the key facts, near the top').toBe('#claim');
    const claim = page.getByRole('region', { name: 'Is this your service?' });
    await claim.getByRole('link', { name: 'Claim this listing' }).click();
    await page.waitForURL(`${origin}/owners#claim`);
    await page.goBack();
    expect(await claim.locator('pre').innerText()).toBe(
      `curl -X POST https://index.test/api/v1/claims -H 'content-type: application/json' -d '{"service_id": "alpha-example-com"}'`);

    await page.goto(`${origin}/pricing`);
    expect(await page.locator('h1').innerText()).toBe('Pricing');
    expect(await page.locator('table').innerText()).toContain('index-demo-market-data');
    await page.goto(`${origin}/docs/purchase`);
    expect(await page.locator('h2').allInnerTexts()).toContain('2. Ask for a purchase');
    expect(await page.locator('main a[href="/docs/purchase.md"]').count()).toBe(1);
    await page.close();
  });

  it('without JavaScript, /submit and /owners give the curl on this index\'s own origin; a submission\'s times read in the site\'s format', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    for (const path of ['/submit', '/owners']) {
      await page.goto(`${origin}${path}`);
      const text = await page.locator('main').innerText();
      expect(text, path).toContain('curl -X POST https://index.test/api/v1/');
      expect(text, path).not.toContain('<this index>');
    }
    await context.close();
    const { submission } = submitService(db, { endpoint: 'https://later.example.org/pay', name: null, contact: null, idempotencyKey: null }, FIXTURE_NOW);
    const scripted = await browser.newPage();
    await scripted.goto(`${origin}/submissions/${submission.id}`);
    await scripted.waitForSelector('#submission-facts:not([hidden])');
    const facts = await scripted.locator('#submission-facts').innerText();
    expect(facts).toContain('2026-11-01 12:00 UTC');
    expect(facts).not.toMatch(/\d{4}-\d\d-\d\dT/);
    await scripted.close();
  });

  it('shows the approval page without JavaScript: amount, asset, recipient, a faucet, and a Decline that works; an unknown purchase is a 404', async () => {
    const id = await createPurchase();
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 900 } });
    const page = await context.newPage();
    const response = await page.goto(`${origin}/purchase/${id}`);
    expect(response?.status()).toBe(200);
    const facts = await page.locator('#facts').innerText();
    expect(facts).toContain('0.003 USDC (3000 atomic units)');
    expect(facts).toContain('USDC at 0x036CbD53842c5426634e7929541eC2318f3dCF7e');
    expect(facts).toContain('0x000000000000000000000000000000000000dEaD');
    expect(await page.getByRole('link', { name: "Circle's faucet" }).getAttribute('href')).toBe('https://faucet.circle.com/');
    expect(await page.locator('#approve').isVisible(), 'approving needs the wallet, so JavaScript').toBe(false);
    expect(await page.locator('noscript').innerText()).toContain('expires at 2026-');

    await page.getByRole('button', { name: 'Decline' }).click();
    await page.waitForURL(`${origin}/purchase/${id}`);
    expect(await page.locator('#status').innerText()).toBe('Not paid. The owner declined this purchase: nothing was signed or paid.');
    expect(await page.getByRole('button', { name: 'Decline' }).isVisible()).toBe(false);
    const agent = await (await fetch(`${origin}/api/v1/purchases/${id}`)).json() as { status: string };
    expect(agent.status).toBe('failed');

    const unknown = await page.goto(`${origin}/purchase/pur_nosuchpurchase`);
    expect(unknown?.status()).toBe(404);
    expect(await page.locator('h1').innerText()).toBe("This page isn't here");
    await context.close();
  });

  it('declines with JavaScript too, in place', async () => {
    const id = await createPurchase();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${origin}/purchase/${id}`);
    await page.locator('#approve').waitFor();
    await page.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.locator('#status').innerText()).toBe('Not paid. The owner declined this purchase: nothing was signed or paid.');
    expect(page.url()).toBe(`${origin}/purchase/${id}`);
    expect(await page.locator('#decide').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('tells the status plainly: one mark per failed directory, the probe outcomes under their own heading, each count explained', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
    await page.goto(`${origin}/status`);
    const failed = page.locator('td', { hasText: 'ENOTFOUND' });
    expect(await failed.innerText()).toBe('failed getaddrinfo ENOTFOUND mpp.dev');
    const marks = await failed.locator('.badge').evaluate((badge) => getComputedStyle(badge, '::before').content + badge.textContent);
    expect(marks.match(/✕/g)).toHaveLength(1);
    expect(await page.getByRole('heading', { name: 'Probe outcomes' }).isVisible()).toBe(true);
    expect(await page.locator('.facts dd .sub').allInnerTexts()).toContain('any HTTP answer, challenge or not; this index\'s own demo services count too');
    await page.close();
  });

  it('keeps screenshots of the home, a listing, /status, /submit, /owners and approval at 390 and 1280 px in light and dark: axe clean, nothing scrolls sideways', async () => {
    const id = await createPurchase();
    const pages = [['home', '/'], ['listing', '/services/alpha-example-com'], ['status', '/status'], ['submit', '/submit'],
      ['owners', '/owners'], ['approval', `/purchase/${id}`], ['pricing', '/pricing']] as const;
    const problems: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [390, 1280]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme, bypassCSP: true });
        const page = await context.newPage();
        for (const [name, path] of pages) {
          await page.goto(`${origin}${path}`);
          await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}-${scheme}.png`), fullPage: true });
          const overflow = await sidewaysScroll(page);
          if (overflow > 0) problems.push(`${name} at ${width} px (${scheme}) scrolls ${overflow} px sideways`);
          for (const violation of await seriousViolations(page)) problems.push(`${name} at ${width} px (${scheme}): ${violation.id} ${violation.targets.join(', ')}`);
        }
        await context.close();
      }
    }
    expect(problems).toEqual([]);
  });
});
