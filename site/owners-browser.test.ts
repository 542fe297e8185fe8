import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejectSubmission, submitService } from '../data/submissions.ts';
import { FIXTURE_NOW, openFixtureDatabase } from './testing.ts';
import { seriousViolations, servePagesInChromium } from './browser-testing.ts';

/**
 * The submit, submission and owners pages in a real browser (Debian's chromium through playwright-core), against the
 * real app serving a built fixture site over a socket, each checked with axe.
 */

let browser: Browser;
let origin: string;
let close: () => Promise<void>;
const db = openFixtureDatabase();

beforeAll(async () => {
  ({ origin, browser, close } = await servePagesInChromium(db));
}, 180_000);
afterAll(async () => {
  await close?.();
});

describe('owner and submission pages in chromium', { timeout: 120_000 }, () => {
  it('submits through the form, then follows the submission on its status page', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${origin}/submit`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.fill('#endpoint', 'https://new-service.example.org/v1/pay');
    await page.fill('#name', '<img src=x onerror=alert(1)>');
    await page.click('#submit-form button');
    const link = page.locator('#submit-result a');
    await link.waitFor();
    expect(await link.textContent()).toMatch(/^Follow submission sub_/);
    await link.click();
    await page.waitForSelector('#submission-facts:not([hidden])');
    const facts = await page.locator('#submission-facts').innerText();
    expect(facts).toContain('https://new-service.example.org/v1/pay');
    expect(facts).toContain('queued');
    expect(facts).toContain('The next crawl probes the endpoint');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows a rejected submission with its reason, and says so for an unknown id', async () => {
    const { submission } = submitService(db, { endpoint: 'https://gone.example.org/pay', name: null, contact: null, idempotencyKey: null }, FIXTURE_NOW);
    rejectSubmission(db, submission.id, 'no challenge <b>detected</b> after 3 crawls', FIXTURE_NOW.toISOString());
    const page = await browser.newPage({ bypassCSP: true });
    await page.goto(`${origin}/submissions/${submission.id}`);
    await page.waitForSelector('#submission-facts:not([hidden])');
    const facts = await page.locator('#submission-facts').innerText();
    expect(facts).toContain('rejected');
    expect(facts).toContain('no challenge <b>detected</b> after 3 crawls');
    expect(facts).toContain('Fix what the reason says');
    await page.goto(`${origin}/submissions/sub_nope`);
    await page.waitForFunction(() => document.querySelector('#submission-problem')?.textContent !== '');
    expect(await page.locator('#submission-problem').textContent()).toContain('No submission with that id');
    await page.close();
  });

  it('without JavaScript, /submit shows the curl to use', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${origin}/submit`);
    expect(await page.locator('#submit-form').isVisible()).toBe(false);
    expect(await page.locator('noscript pre, pre').first().innerText()).toContain('/api/v1/submit');
    await context.close();
    // Each page's policy allows scripts from this origin only: none of these pages carries an inline script.
    for (const path of ['/submit', '/submissions/sub_x', '/owners']) {
      const html = await (await fetch(`${origin}${path}`, { headers: { accept: 'text/html' } })).text();
      expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g), path).toBeNull();
    }
  });

  it('/owners explains claim, edit, delist and follow, without accessibility violations', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    await page.goto(`${origin}/owners`);
    const text = await page.locator('main').innerText();
    for (const words of ['/api/v1/claims', 'clms_', "authorization: Bearer clms_…", '.well-known/payable-service-index.txt', '_payable-service-index.', 'PATCH', '/delist', '/recheck', 'feed.xml', '/api/v1/webhooks']) {
      expect(text).toContain(words);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});
