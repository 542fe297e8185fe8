import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordProbes } from '../data/probes.ts';
import { makeService } from '../data/testing.ts';
import { serveApp } from './app.ts';
import { createTestApp, TEST_NOW } from './testing.ts';

/*
 * Badges over a real socket, read in a real browser (Debian's chromium): the text a person sees and the colour of
 * its message, per state of the service, and the grey `not indexed` badge of an unknown id.
 */

const CHROMIUM = '/usr/bin/chromium';
const hoursAgo = (hours: number) => new Date(TEST_NOW.getTime() - hours * 3_600_000).toISOString();
const probe = (id: string, ok: boolean, hours: number) => ({
  service_id: id, probed_at: hoursAgo(hours), ok, status_code: ok ? 402 : 500, method: 'GET', latency_ms: 30,
  reason: ok ? null : 'server error', detected_rails: ok ? ['x402' as const] : [],
});

let origin = '';
let browser: Browser;
let close = async () => {};

beforeAll(async () => {
  const test = createTestApp([
    makeService({ id: 'live-test', rails: ['mpp', 'x402'] }),
    makeService({ id: 'dark-test' }),
    makeService({ id: 'new-test' }),
  ]);
  // live-test answered 199 of 200 checks, the last one among them; dark-test's last check failed.
  recordProbes(test.db, Array.from({ length: 200 }, (_, i) => probe('live-test', i !== 7, i + 1)));
  recordProbes(test.db, [probe('dark-test', true, 2), probe('dark-test', false, 1)]);
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  close = async () => {
    await browser.close();
    await server.close(true);
  };
}, 60_000);
afterAll(() => close());

/** The badge as the browser renders it: its visible text and the fill of its message's background. */
async function render(id: string) {
  const page = await browser.newPage();
  try {
    const response = await page.goto(`${origin}/badge/${id}.svg`);
    const text = await page.evaluate(() => [...document.querySelectorAll('text')].filter((t) => !t.getAttribute('fill-opacity')).map((t) => t.textContent).join(' | '));
    const fill = await page.evaluate(() => document.querySelectorAll('rect')[2]?.getAttribute('fill'));
    return { status: response!.status(), headers: response!.headers(), text, fill };
  } finally {
    await page.close();
  }
}

describe('GET /badge/{id}.svg', () => {
  it.each([
    ['live-test', 200, 'mpp + x402 | live · 99.5% 30d', '#4b0'],
    ['dark-test', 200, 'x402 | not live', '#dd4343'],
    ['new-test', 200, 'x402 | not checked', '#939393'],
    ['nobody-test', 404, 'payable-service-index | not indexed', '#939393'],
  ])('draws %s as the browser shows it', async (id, status, text, fill) => {
    const badge = await render(id);
    expect(badge.status).toBe(status);
    expect(badge.text).toBe(text);
    expect(badge.fill).toBe(fill);
    expect(badge.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(badge.headers['cache-control']).toBe('public, max-age=300');
  });

  it('finds the service whatever the case of its id', async () => {
    const response = await fetch(`${origin}/badge/LIVE-test.svg`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('live · 99.5% 30d');
  });
});
