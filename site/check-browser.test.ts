import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../api/testing.ts';
import { parseAllowList } from '../net/guard.ts';
import { startCheckFleet } from '../crawler/testing/check-fleet.ts';
import { noteFacilitators, recordFacilitatorCheck } from '../data/facilitators.ts';
import { FIXTURE_NOW, openFixtureDatabase, SITE_URL } from './testing.ts';
import { seriousViolations, servePagesInChromium } from './browser-testing.ts';

/**
 * The /check page in a real browser (Debian's chromium through playwright-core), against the real app serving a built
 * fixture site over a socket and checking the local check fleet (crawler/testing/check-fleet.ts), checked with axe.
 */

let browser: Browser;
let origin: string;
let fleet: Awaited<ReturnType<typeof startCheckFleet>>;
let close: () => Promise<void>;
const db = openFixtureDatabase();
const HOSTILE_FACILITATOR = 'https://evil.example/"><script>window.__xss=1</script>';

beforeAll(async () => {
  fleet = await startCheckFleet();
  noteFacilitators(db, [{ url: 'https://x402.org/facilitator', seenIn: 'directory' }, { url: HOSTILE_FACILITATOR, seenIn: 'challenge' }], FIXTURE_NOW.toISOString());
  recordFacilitatorCheck(db, 'https://x402.org/facilitator', FIXTURE_NOW.toISOString(), {
    kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }], extensions: ['bazaar', '<img src=x onerror="window.__xss=1">'],
  });
  ({ origin, browser, close } = await servePagesInChromium(db, testConfig({ allowPrivateTargets: parseAllowList('127.0.0.1') })));
}, 180_000);
afterAll(async () => {
  await close?.();
  await fleet?.close();
});

describe('/check in chromium', { timeout: 120_000 }, () => {
  it('checks a URL through the form and shows each problem with where it is and its fix, without accessibility violations', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    await page.goto(`${origin}/`);
    await page.click('footer a[href="/check"]');
    await page.waitForURL(`${origin}/check`);
    await page.fill('#check-url', `${fleet.origin}/amount-decimal`);
    await page.click('#check-form button');
    const result = page.locator('#check-result');
    await result.locator('h2').waitFor();
    const text = await result.innerText();
    expect(text).toContain('Not live');
    expect(text).toContain('error: x402_amount_not_integer');
    expect(text).toContain('header PAYMENT-REQUIRED, accepts[0].amount');
    expect(text).toContain('"10000"');
    expect(text).toContain(`${fleet.origin}/.well-known/x402: valid, 2 prices`);
    expect(text).toContain('does not list this host');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('shows a refusal as an alert', async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/check`);
    await page.fill('#check-url', 'http://10.0.0.1/pay');
    await page.click('#check-form button');
    await expect.poll(() => page.locator('#check-result [role="alert"]').innerText()).toContain('private address');
    await page.close();
  });

  it('without JavaScript, shows the curl on this index\'s own origin and every problem code', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${origin}/check`);
    expect(await page.locator('#check-form').isVisible()).toBe(false);
    expect(await page.locator('noscript pre, pre').first().innerText()).toContain(`curl -X POST ${SITE_URL}/api/v1/check`);
    expect(await page.locator('table code').allInnerTexts()).toContain('mpp_request_not_base64url');
    await context.close();
    const html = await (await fetch(`${origin}/check`, { headers: { accept: 'text/html' } })).text();
    expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
  });

  it('/facilitators lists each facilitator with its answer, kinds, extensions and services, escaped, without accessibility violations', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    await page.goto(`${origin}/`);
    await page.click('footer a[href="/facilitators"]');
    await page.waitForURL(`${origin}/facilitators`);
    const rows = await page.locator('tbody tr').allInnerTexts();
    expect(rows[0]).toContain('https://x402.org/facilitator');
    expect(rows[0]).toContain('Answered');
    expect(rows[0]).toContain('v2 exact eip155:84532');
    expect(rows[0]).toContain('<img src=x onerror="window.__xss=1">');
    expect(rows[1]).toContain('Not checked yet');
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});
