import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClaim, verifyClaim } from '../data/claims.ts';
import type { DB } from '../data/db.ts';
import { recordProbe } from '../data/probes.ts';
import { beginSettlement, insertPurchase } from '../data/purchases.ts';
import { upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { submitService } from '../data/submissions.ts';
import type { EndpointInput, ProbeInput, ServiceInput } from '../data/types.ts';
import { createWebhook, queuePing } from '../data/webhooks.ts';
import { buildSite, type BuildOptions } from './build/build.ts';

/**
 * Test support for the site: a fixture database covering every case a listing page has (checked and live,
 * checked and down with reasons, never checked, acp://, 200 endpoints, dual-rail, a free endpoint, hostile
 * text), and a build of it into a temporary folder.
 * @example const { db } = openFixtureDatabase(); const site = await buildFixtureSite(db);
 */

export const FIXTURE_NOW = new Date('2026-11-01T12:00:00.000Z');
export const SITE_URL = 'https://index.test';

const HOUR_MS = 3_600_000;

/** Probes of a service, `count` of them every `everyHours` up to FIXTURE_NOW, newest last. */
export function makeProbes(serviceId: string, count: number, result: (k: number) => Partial<ProbeInput> & { ok: boolean }, everyHours = 1): ProbeInput[] {
  return Array.from({ length: count }, (_, k) => {
    const outcome = result(k);
    return {
      service_id: serviceId,
      probed_at: new Date(FIXTURE_NOW.getTime() - (count - 1 - k) * everyHours * HOUR_MS - 60_000).toISOString(),
      status_code: outcome.ok ? 402 : 404,
      method: 'GET',
      latency_ms: 100 + ((k * 37) % 90),
      reason: outcome.ok ? null : 'answered HTTP 404 without a payment challenge',
      detected_rails: outcome.ok ? ['x402'] : [],
      ...outcome,
    };
  });
}

function endpoints(host: string, count: number): EndpointInput[] {
  return Array.from({ length: count }, (_, k) => ({
    url: `https://${host}/v1/tool-${String(k + 1).padStart(3, '0')}`,
    method: k % 10 === 3 ? null : k % 2 ? 'POST' : 'GET',
    description: k % 7 === 5 ? null : `Tool number ${k + 1}`,
    price: k % 5 === 4 ? { usd: null, display: null } : { usd: 0.001 * (k + 1), display: `$${0.001 * (k + 1)} / call` },
    rails: ['mpp'],
    chains: ['tempo'],
    assets: ['USDC'],
  }));
}

/** The fixture's services, by what each one exercises. */
export const FIXTURE_SERVICES: ServiceInput[] = [
  makeService({
    id: 'alpha-example-com',
    name: 'Alpha Weather',
    description: 'Current weather for any city, paid per call.',
    category: 'data',
    endpoint: 'https://alpha.example.com/v1/weather',
    facilitator: 'https://x402.org/facilitator',
    price: { usd: 0.01, display: '$0.01 / call' },
    sources: [
      { source: 'bazaar', url: 'https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources' },
      { source: 'open402', url: 'https://github.com/ArcedeDev/open-402' },
    ],
    endpoints: [
      { url: 'https://alpha.example.com/v1/weather', method: 'GET', description: 'Weather now', price: { usd: 0.01, display: '$0.01 / call' }, rails: ['x402'], chains: ['base'], assets: ['USDC'] },
      { url: 'https://alpha.example.com/v1/forecast', method: 'POST', description: null, price: { usd: 0, display: 'Free' }, rails: ['x402'], chains: ['base'], assets: ['USDC'] },
      { url: 'https://cdn.other.example/alpha/history', method: null, description: 'History, hosted elsewhere', price: { usd: null, display: null }, rails: ['x402'], chains: ['base'], assets: ['USDC'] },
    ],
  }),
  makeService({
    id: 'down-example-com',
    name: 'Down Search',
    description: 'A search API whose challenge went away.',
    endpoint: 'https://down.example.com/search',
    price: { usd: null, display: null },
  }),
  makeService({ id: 'fresh-example-com', name: 'Fresh Scraper', description: 'Never checked yet.', endpoint: 'https://fresh.example.com/scrape' }),
  makeService({
    id: 'shop-example',
    name: 'Example Shop',
    category: 'commerce',
    description: 'An ACP merchant.',
    endpoint: 'acp://shop.example',
    rails: ['acp'],
    chains: [],
    assets: [],
    price: { usd: null, display: null },
    sources: [{ source: 'acp', url: 'https://openai.com/index/buy-it-in-chatgpt/' }],
    endpoints: [{ url: 'acp://shop.example', method: null, description: null, price: { usd: null, display: null }, rails: ['acp'], chains: [], assets: [] }],
  }),
  makeService({
    id: 'many-example-com',
    name: 'Many Tools Gateway',
    description: 'A gateway listing 200 endpoints.',
    endpoint: 'https://many.example.com/v1/tool-001',
    rails: ['mpp'],
    chains: ['tempo'],
    price: { usd: 0.001, display: '$0.001 / call' },
    sources: [{ source: 'mpp.dev', url: 'https://mpp.dev/api/services?ids=many' }],
    endpoints: endpoints('many.example.com', 200),
  }),
  makeService({
    id: 'dual-example-com',
    name: 'Dual Rail Data',
    endpoint: 'https://dual.example.com/pay',
    rails: ['mpp', 'x402'],
    chains: ['base', 'tempo'],
    assets: ['USDC', 'pathUSD'],
  }),
];

/** Probes for the fixture: alpha mostly live, down failing now after being live, the rest none. */
export function fixtureProbes(): ProbeInput[] {
  return [
    ...makeProbes('alpha-example-com', 30, (k) => ({ ok: k % 10 !== 4 })),
    ...makeProbes('down-example-com', 6, (k) =>
      k < 3 ? { ok: true } : k === 5 ? { ok: false, status_code: null, latency_ms: null, reason: 'timed out after 10 s' } : { ok: false }),
    ...makeProbes('dual-example-com', 3, () => ({ ok: true, detected_rails: ['mpp', 'x402'] }), 24),
  ];
}

/** A migrated in-memory database holding the fixture, probes included. */
export function openFixtureDatabase(extra: ServiceInput[] = []): DB {
  const db = openTestDatabase();
  upsertServices(db, [...FIXTURE_SERVICES, ...extra], new Date(FIXTURE_NOW.getTime() - 40 * 86_400_000).toISOString());
  for (const probe of fixtureProbes()) recordProbe(db, probe);
  return db;
}

/** The files of the served release (dotfiles left out), by path. */
export function readRelease(distDir: string): Map<string, Buffer> {
  const paths = readdirSync(distDir, { recursive: true, encoding: 'utf8' })
    .map((path) => path.split('\\').join('/'))
    .filter((path) => !path.split('/').some((segment) => segment.startsWith('.')) && statSync(join(distDir, path)).isFile());
  return new Map(paths.map((path) => [path, readFileSync(join(distDir, path))]));
}

export interface FixtureSite {
  dir: string;
  distDir: string;
  options: BuildOptions;
  remove(): void;
}

/**
 * Builds the site of `db` into a new temporary folder.
 * @example const site = await buildFixtureSite(db); readFileSync(join(site.distDir, 'index.html'), 'utf8');
 */
export async function buildFixtureSite(db: DB, overrides: Partial<BuildOptions> = {}): Promise<FixtureSite> {
  const dir = mkdtempSync(join(tmpdir(), 'psi-site-'));
  const options: BuildOptions = {
    distDir: join(dir, 'dist'),
    siteUrl: SITE_URL,
    stagingUrl: SITE_URL,
    now: () => FIXTURE_NOW,
    ...overrides,
  };
  await (await buildSite(db, options)).pruned;
  return { dir, distDir: options.distDir, options, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Text put in every field a directory or a submitter controls: markup, event handlers, `javascript:` and other
 * schemes, quotes that would end an attribute, template syntax. None may execute or become a live link.
 */
export const XSS_PAYLOADS = [
  '<script>window.__xss=1</script>',
  '<img src=x onerror="window.__xss=2">',
  '"><svg onload=window.__xss=3>',
  "'><iframe src=javascript:window.__xss=4>",
  'javascript:window.__xss=5',
  'JaVaScRiPt:window.__xss=6',
  ' javascript:window.__xss=7',
  'java\tscript:window.__xss=8',
  'data:text/html,<script>window.__xss=9</script>',
  'vbscript:msgbox(10)',
  '<a href="javascript:window.__xss=11">click</a>',
  '<body onload=window.__xss=12>',
  '<details open ontoggle=window.__xss=13>',
  '<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=14>',
  '{{constructor.constructor("window.__xss=15")()}}',
  '${window.__xss=16}',
  '</title><script>window.__xss=17</script>',
  '</textarea><script>window.__xss=18</script>',
  '<style>@import "javascript:window.__xss=19"</style>',
  '&lt;script&gt;window.__xss=20&lt;/script&gt;',
  '<input autofocus onfocus=window.__xss=21>',
  '\u2028<script>window.__xss=22</script>',
  '<svg><a xlink:href="javascript:window.__xss=23"><text y="20">x</text></a></svg>',
  '" onmouseover="window.__xss=24" x="',
];

/** Failed checks whose reasons carry the payloads, for the hostile services. */
export function makeHostileProbes(): ProbeInput[] {
  return XSS_PAYLOADS.flatMap((payload, k) =>
    makeProbes(`xss-${k}-example-com`, 2, (n) => (n === 1 ? { ok: false, reason: payload, method: payload.slice(0, 10) } : { ok: true })));
}

/** Services whose every text field, and endpoint URLs, carry the payloads. */
export function makeHostileServices(): ServiceInput[] {
  return XSS_PAYLOADS.map((payload, k) => {
    const id = `xss-${k}-example-com`;
    const scheme = k % 3 === 0 ? payload : `https://xss-${k}.example.com/${encodeURIComponent(payload)}`;
    return makeService({
      id,
      name: `Hostile ${k} ${payload}`,
      description: `Description ${payload}`,
      category: payload.slice(0, 40),
      endpoint: `https://xss-${k}.example.com/pay`,
      facilitator: payload,
      price: { usd: 0.01, display: payload },
      chains: k % 4 === 1 ? ['base', payload.slice(0, 30)] : ['base'],
      assets: k % 4 === 2 ? ['USDC', payload.slice(0, 30)] : ['USDC'],
      sources: [{ source: payload.slice(0, 30), url: payload }],
      endpoints: [
        { url: `https://xss-${k}.example.com/pay`, method: payload.slice(0, 20), description: payload, price: { usd: null, display: payload }, rails: ['x402'], chains: ['base'], assets: ['USDC'] },
        { url: scheme, method: 'GET', description: payload, price: { usd: 0.01, display: null }, rails: ['x402'], chains: [payload.slice(0, 20)], assets: ['USDC'] },
      ],
    });
  });
}

/** What plantPrivateData wrote: every value that must appear nowhere public, and the ids a key holder would ask by. */
export interface PlantedData {
  values: string[];
  submissionId: string;
  webhookId: string;
  claimIds: string[];
}

/**
 * Writes into a fixture database one of everything that must never be served without a key or published: a
 * webhook's secret, receiver and client address and a queued delivery, a pending and a verified claim (ids, tokens,
 * the claim secret's digest, clients, the owner key's digest), a submission's contact and idempotency key, a purchase
 * (id, payer, nonce).
 * @example const planted = plantPrivateData(openFixtureDatabase()); // then look for planted.values everywhere public
 */
export function plantPrivateData(db: DB): PlantedData {
  const now = FIXTURE_NOW.toISOString();
  const webhook = createWebhook(db, {
    id: 'wh_planted7c1e', url: 'https://planted-receiver.example/hook', secret: 'whsec_planted_5e8b1f0c9a7d', types: [], services: [],
    rail: null, chain: null, asset: null, client: '203.0.113.77',
  }, now);
  queuePing(db, webhook, 'msg_planted_3b9d', now);
  // Digests as the API stores them (64 hex digits), so a bearer compared against them is refused as in production.
  const secretDigest = 'c1a5e05ec7e7'.padEnd(52, '0') + 'd4e3f2a1b0c9';
  const pending = createClaim(db, { service_id: 'alpha-example-com', secret_digest: secretDigest, client: '198.51.100.23', now: FIXTURE_NOW });
  const verified = createClaim(db, { service_id: 'dual-example-com', secret_digest: secretDigest, client: '198.51.100.41', now: FIXTURE_NOW });
  const keyHash = 'f3a9c0de71b2'.padEnd(52, '0') + 'b6e5d4c3b2a1';
  if (!verifyClaim(db, verified, keyHash, now)) throw new Error('the planted claim was not verified');
  const { submission } = submitService(db, {
    endpoint: 'https://api.planted-submission.example/pay', name: null, contact: 'planted-contact@owner.example', idempotencyKey: 'planted-idem-key-7f3a',
  }, FIXTURE_NOW);
  const purchase = insertPurchase(db, {
    service_id: 'demo', params: {}, resource_url: 'https://index.example/api/demo/planted', amount_atomic: '1000',
    pay_to: '0x1111111111111111111111111111111111111111', network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  }, FIXTURE_NOW);
  const payer = '0x9a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b';
  const nonce = '0x5eed00000000000000000000000000000000000000000000000000000000c0de';
  if (!beginSettlement(db, purchase.id, { payer, nonce }, FIXTURE_NOW).ok) throw new Error('the planted purchase did not settle');
  return {
    values: ['whsec_planted_5e8b1f0c9a7d', 'planted-receiver.example', '203.0.113.77', 'msg_planted_3b9d', webhook.id,
      pending.id, pending.token, '198.51.100.23', verified.id, verified.token, '198.51.100.41', keyHash, secretDigest,
      'planted-contact@owner.example', 'planted-idem-key-7f3a', 'planted-submission.example', purchase.id, payer, nonce],
    submissionId: submission.id,
    webhookId: webhook.id,
    claimIds: [pending.id, verified.id],
  };
}
