import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toOffer } from '../crawler/offers.ts';
import { toEndpointId } from '../data/endpoint-id.ts';
import { makeService } from '../data/testing.ts';
import type { EndpointInput } from '../data/types.ts';
import { openFixtureDatabase } from './testing.ts';
import { seriousViolations, servePagesInChromium } from './browser-testing.ts';

/**
 * The listing page's "How to call" section in chromium, with JavaScript and without: per endpoint its method and
 * URL, parameter table, ready curl, offers with scheme and unit, and output example; hostile directory text shown as
 * text and never run; axe finds nothing serious.
 */
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const TEMPO_USDC = '0x20C000000000000000000000b9537d11c60E8b50';
const HOSTILE = '<img src=x onerror="alert(1)">';
const SCRIPT = '</code><script>alert(2)</script>';

const base = { rails: ['x402' as const], chains: ['base'], assets: ['USDC'], description: null, sources: ['bazaar'] };
const ENDPOINTS: EndpointInput[] = [
  {
    ...base, url: 'https://calls.example.com/v1/quote', method: 'GET', price: { usd: 0.01, display: '$0.01 / call' },
    offers: [toOffer({ rail: 'x402', scheme: 'exact', network: 'eip155:8453', asset: BASE_USDC, amount: '10000', seenIn: 'bazaar' })],
    input: {
      type: 'http', method: 'GET', path: null, headers: null, body_type: null, body: null, tool: null,
      query: { type: 'object', properties: { symbol: { type: 'string', description: HOSTILE } }, required: ['symbol'] },
      example: { query: { symbol: 'ETH' } },
    },
    output: { mime_type: 'application/json', schema: null, example: { price: 3120.5, note: SCRIPT } },
  },
  {
    ...base, url: 'https://calls.example.com/v2/users/42', method: 'GET', route_template: '/v2/users/:id', price: { usd: null, display: null },
    offers: [toOffer({ rail: 'x402', scheme: 'upto', network: 'eip155:8453', asset: BASE_USDC, amount: '50000', seenIn: 'bazaar' })],
    input: {
      type: 'http', method: 'GET', query: null, headers: null, body_type: null, body: null, tool: null, example: null,
      path: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  },
  {
    ...base, rails: ['mpp'], chains: ['tempo'], sources: ['mpp.dev'], url: 'https://calls.example.com/chat', method: 'POST',
    price: { usd: 0.000002, display: '$0.000002 / llm_token' },
    offers: [toOffer({ rail: 'mpp', scheme: 'session', method: 'tempo', network: null, chain: 'tempo', asset: TEMPO_USDC, amount: '2', decimals: 6, unit: 'llm_token', seenIn: 'mpp.dev' })],
    input: {
      type: 'http', method: 'POST', query: null, path: null, headers: null, tool: null, example: null, body_type: 'json',
      body: { type: 'object', properties: { model: { type: 'string', enum: ['small', 'large'] }, stream: { type: 'boolean' } }, required: ['model'] },
    },
  },
];
const SERVICE = makeService({ id: 'calls-example-com', name: 'Calls', endpoint: ENDPOINTS[0]!.url, endpoints: ENDPOINTS });
const callId = (index: number) => `#call-${toEndpointId(SERVICE.id, ENDPOINTS[index]!.method, ENDPOINTS[index]!.url).replaceAll('.', '\\.')}`;

let browser: Browser;
let origin: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ origin, browser, close } = await servePagesInChromium(openFixtureDatabase([SERVICE])));
}, 180_000);
afterAll(async () => {
  await close?.();
});

describe('the listing page shows how to call each endpoint', { timeout: 120_000 }, () => {
  for (const javaScriptEnabled of [true, false]) {
    it(`shows method, parameters, curl, offers and output example ${javaScriptEnabled ? 'with' : 'without'} JavaScript`, async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 900 }, javaScriptEnabled, bypassCSP: true });
      const page = await context.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${origin}/services/calls-example-com`);
      const quote = page.locator(callId(0));
      expect(await quote.getAttribute('open')).not.toBeNull();
      expect(await quote.locator('summary').textContent()).toBe('GET /v1/quote');
      expect(await quote.locator('tbody tr').allTextContents()).toEqual([`symbolquerystringyes${HOSTILE}`]);
      expect(await quote.locator('pre').first().textContent()).toBe("curl -i 'https://calls.example.com/v1/quote?symbol=ETH'");
      expect(await quote.locator('.offers li').allTextContents()).toEqual(['$0.01 / call · x402 exact · base USDC · listed by bazaar']);
      expect(JSON.parse((await quote.locator('pre').nth(1).textContent())!)).toEqual({ price: 3120.5, note: SCRIPT });
      expect(await quote.locator('img, script').count(), 'directory text is never markup').toBe(0);

      const users = page.locator(callId(1));
      expect(await users.getAttribute('open')).toBeNull();
      await users.locator('summary').click();
      expect(await users.getAttribute('open')).not.toBeNull();
      expect(await users.locator('summary').textContent()).toBe('GET /v2/users/:id');
      expect(await users.locator('.offers li').textContent()).toBe('up to $0.05 / call · x402 upto · base USDC · listed by bazaar');
      expect(await users.locator('pre').textContent()).toBe("curl -i https://calls.example.com/v2/users/42");

      const chat = page.locator(callId(2));
      expect(await chat.locator('.offers li').textContent()).toBe('$0.000002 / llm_token · MPP tempo session · tempo USDC · listed by mpp.dev');
      expect(await chat.locator('pre').textContent()).toBe(
        "curl -i https://calls.example.com/chat -X POST \\\n  -H 'content-type: application/json' \\\n  -d '{\"model\":\"small\",\"stream\":false}'",
      );
      expect(await chat.locator('tbody tr').allTextContents()).toEqual(['modelbodystring ("small", "large")yes—', 'streambodybooleanno—']);

      expect(dialogs).toEqual([]);
      // axe runs as a script: the page it checks is the same with or without.
      if (javaScriptEnabled) expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    });
  }
});
