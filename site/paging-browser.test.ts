import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeService } from '../data/testing.ts';
import { servePagesInChromium, type PagesInChromium } from './browser-testing.ts';
import { openFixtureDatabase } from './testing.ts';

/**
 * The home page pages a search by what the list answers (`more`, `next_offset`), not by its counts: `relevance`
 * lists the services holding all words but one after the counted matches, and the pager links them, from the server
 * and from the script alike.
 */
let served: PagesInChromium;

beforeAll(async () => {
  // One service holds both words; sixty hold "vintage" alone.
  served = await servePagesInChromium(openFixtureDatabase([
    makeService({ id: 'claret-example-com', name: 'Claret club', description: 'Vintage claret by the case' }),
    ...Array.from({ length: 60 }, (_, i) => makeService({
      id: `cellar-${String(i).padStart(2, '0')}-example-com`, name: `Cellar ${i}`, description: 'Vintage wines',
    })),
  ]));
}, 120_000);
afterAll(async () => served?.close());

async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  return { page, errors };
}

const pagerItems = (page: Page) => page.locator('#results-pager > *')
  .evaluateAll((items) => items.map((item) => [item.textContent, item.getAttribute('href')]));

describe('home page paging', () => {
  it('links the partial matches past the counted ones, from the script and from the server', async () => {
    const scripted = await served.browser.newContext({ viewport: { width: 1280, height: 900 } });
    {
      const { page, errors } = await openPage(scripted);
      await page.goto(`${served.origin}/`);
      await page.waitForSelector('form.search[data-enhanced="on"]');
      const searched = page.waitForResponse((response) => response.url().includes('/api/v1/services?') && response.url().includes('q=claret'));
      await page.getByLabel('Search name, category, description or endpoint').fill('claret vintage');
      await searched;
      await expect.poll(() => pagerItems(page)).toEqual([['Page 1', null], ['Next →', '/?q=claret+vintage&offset=50']]);
      expect(await page.locator('#results > li').count()).toBe(50);
      expect(await page.locator('#results-status .status-line').textContent())
        .toBe('Showing 1–50: 1 service matches every word; 49 services here hold all words but one.');

      await page.getByRole('link', { name: 'Next →' }).click();
      await expect.poll(() => pagerItems(page)).toEqual([['← Previous', '/?q=claret+vintage'], ['Page 2 of 2', null]]);
      expect(await page.locator('#results > li').count()).toBe(11);
      expect(new URL(page.url()).search).toBe('?q=claret+vintage&offset=50');
      expect(errors).toEqual([]);
    }
    await scripted.close();

    const plain = await served.browser.newContext({ javaScriptEnabled: false });
    {
      const { page, errors } = await openPage(plain);
      await page.goto(`${served.origin}/?q=claret+vintage`);
      expect(await pagerItems(page)).toEqual([['Page 1', null], ['Next →', '/?q=claret+vintage&offset=50']]);
      await page.getByRole('link', { name: 'Next →' }).click();
      await page.waitForURL(/offset=50/);
      expect(await page.locator('#results > li').count()).toBe(11);
      expect(await pagerItems(page)).toEqual([['← Previous', '/?q=claret+vintage'], ['Page 2 of 2', null]]);
      // Every other order lists the counted match alone.
      await page.goto(`${served.origin}/?q=claret+vintage&sort=price`);
      expect(await page.locator('#results > li').count()).toBe(1);
      expect(await pagerItems(page)).toEqual([['Page 1 of 1', null]]);
      expect(errors).toEqual([]);
    }
    await plain.close();
  }, 60_000);
});
