import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { encodePaymentRequiredHeader, HTTPFacilitatorClient } from '@x402/core/http';
import { validateDiscoveryExtension, withBazaar } from '@x402/extensions/bazaar';
import { Challenge } from 'mppx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDirectoryConfig } from '../crawler/directories.ts';
import { createProbeAgent, type ProbeAgent } from '../crawler/probe.ts';
import { runCrawl } from '../crawler/run.ts';
import { parseAllowList } from '../net/guard.ts';
import { openDatabase, type DB } from '../data/db.ts';
import { recordEndpointChecks } from '../data/endpoint-checks.ts';
import { Endpoint, EndpointList, ErrorResponse, ServiceDetail, ServiceList } from '../domain/schemas.ts';
import { TEMPO_USDC, toPaymentRequiredHeader, toTempoChallenge, toV1Requirement } from '../scripts/fleet/challenges.ts';
import { createApp, serveApp } from './app.ts';
import { testConfig } from './testing.ts';

/*
 * Endpoints end to end: a crawl over real local servers (a Bazaar directory with v1 and v2 entries, an mpp.dev
 * directory with a session endpoint, hosts answering x402, MPP or both on one 402), then the endpoint records through
 * the API on a real socket and through MCP with the official SDK client, on one SQLite file.
 */

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAY_TO = '0x1111111111111111111111111111111111111111';
const dir = mkdtempSync(join(tmpdir(), 'psi-endpoints-'));
let db: DB;
let agent: ProbeAgent;
let origin = '';
let api = '';
let hostA = '';
let hostB = '';
const closers: Array<() => Promise<unknown>> = [];
let openApiReads = 0;

function listen(handle: (req: IncomingMessage, res: ServerResponse, own: string) => void): Promise<string> {
  let own = '';
  const server: Server = createServer((req, res) => handle(req, res, own));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    own = `http://127.0.0.1:${port}`;
    closers.push(() => new Promise((done) => server.close(done)));
    resolve(own);
  }));
}

const json = (res: ServerResponse, body: unknown): void => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
const paid = (res: ServerResponse, headers: Record<string, string>, body = '{}'): void => {
  res.writeHead(402, { 'content-type': 'application/json', ...headers }).end(body);
};

const uptoHeader = (url: string) => encodePaymentRequiredHeader({
  x402Version: 2, resource: { url, mimeType: 'application/json' },
  accepts: [{ scheme: 'upto', network: 'eip155:8453', amount: '50000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 300, extra: { name: 'USDC', version: '2' } }],
});

const sessionChallenge = (realm: string) => Challenge.serialize(Challenge.from({
  secretKey: 'test-secret', realm, method: 'tempo', intent: 'session',
  request: { amount: '2', unitType: 'llm_token', suggestedDeposit: '1000000', currency: TEMPO_USDC, recipient: PAY_TO, methodDetails: { chainId: 4217 } },
}));

/** Host A: a quote answering x402 and MPP on one 402, a route with an `upto` ceiling, a v1 search, an MPP session. */
function hostAHandler(req: IncomingMessage, res: ServerResponse, own: string): void {
  const path = new URL(req.url ?? '/', own).pathname;
  const realm = new URL(own).host;
  if (path === '/quote') return paid(res, { 'payment-required': toPaymentRequiredHeader({ url: `${own}/quote`, amount: '10000', description: 'Quote' }), 'www-authenticate': toTempoChallenge({ url: `${own}/quote`, amount: '10000', description: 'Quote' }, realm) });
  if (path === '/v2/users/42') return paid(res, { 'payment-required': uptoHeader(`${own}/v2/users/42`) });
  if (path === '/v1/search' && req.method === 'POST') return paid(res, {}, JSON.stringify({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [toV1Requirement({ url: `${own}/v1/search`, amount: '35000', description: 'Web search' }, 'POST')] }));
  if (path === '/chat' && req.method === 'POST') return paid(res, { 'www-authenticate': sessionChallenge(realm) });
  if (path === '/openapi.json') {
    openApiReads += 1;
    return json(res, openApiDocument());
  }
  if (path === '/.well-known/x402') return json(res, { version: 1, resources: ['/extra'] });
  res.writeHead(404).end();
}

/** Host B: listed by mpp.dev only, its 402 carries x402 alone. */
function hostBHandler(req: IncomingMessage, res: ServerResponse, own: string): void {
  paid(res, { 'payment-required': toPaymentRequiredHeader({ url: `${own}/pay`, amount: '20000', description: 'Pay' }) });
}

const quoteSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['input'],
  properties: {
    input: {
      type: 'object', required: ['type', 'method'],
      properties: {
        type: { type: 'string', const: 'http' }, method: { type: 'string', enum: ['GET'] },
        queryParams: { type: 'object', properties: { symbol: { type: 'string', description: 'Ticker' } }, required: ['symbol'] },
      },
    },
    output: { type: 'object', properties: { example: { type: 'object', properties: { price: { type: 'number' } } } } },
  },
};

/** Host A's own OpenAPI document: x-payment-info in MPP's offers form and in x402scan's protocols/price form. */
function openApiDocument() {
  return {
    openapi: '3.1.0', info: { title: 'A', version: '1' },
    'x-service-info': { categories: ['search'], docs: { apiReference: `${hostA}/docs` } },
    components: { schemas: { Query: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } },
    paths: {
      '/v1/search': { post: {
        summary: 'Search the web',
        'x-payment-info': { offers: [{ intent: 'charge', method: 'tempo', amount: '35000', currency: TEMPO_USDC }] },
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Query' } } } },
        responses: { '402': { description: 'Payment required' } },
      } },
      '/report/{id}': { get: {
        summary: 'One report',
        'x-payment-info': { protocols: [{ x402: {} }, { mpp: { method: 'tempo', intent: 'charge', currency: 'USD' } }], price: { mode: 'fixed', currency: 'USD', amount: '0.05' } },
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'format', in: 'query', description: 'pdf or html', schema: { type: 'string', enum: ['pdf', 'html'] } },
        ],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' }, example: { title: 'Q3' } } } } },
      } },
      '/free': { get: { summary: 'Free, no payment info' } },
    },
  };
}

function bazaarPage() {
  return {
    x402Version: 2,
    pagination: { limit: 100, offset: 0, total: 3 },
    items: [
      {
        resource: `${hostA}/quote`, type: 'http', x402Version: 2, lastUpdated: '2026-10-01T00:00:00Z', description: 'Quote a price',
        serviceName: 'Quotes', tags: ['finance'],
        accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 300 }],
        extensions: { bazaar: { info: { input: { type: 'http', method: 'GET', queryParams: { symbol: 'ETH' } }, output: { type: 'json', example: { price: 3120.5 } } }, schema: quoteSchema } },
      },
      {
        resource: `${hostA}/v2/users/42`, type: 'http', x402Version: 2, description: 'One user',
        accepts: [{ scheme: 'upto', network: 'eip155:8453', amount: '50000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 300 }],
        extensions: { bazaar: {
          routeTemplate: '/v2/users/:id',
          info: { input: { type: 'http', method: 'GET', pathParams: { id: '42' } } },
          // An invalid schema for the query: dropped whole.
          schema: { type: 'object', properties: { input: { type: 'object', properties: { queryParams: { type: 12 } } } } },
        } },
      },
      {
        resource: `${hostA}/v1/search`, type: 'http', x402Version: 1,
        accepts: [{
          ...toV1Requirement({ url: `${hostA}/v1/search`, amount: '35000', description: 'Web search' }, 'POST'),
          outputSchema: {
            input: { type: 'http', method: 'POST', bodyType: 'json', bodyFields: {
              query: { type: 'string', description: 'What to search', required: true },
              count: { type: 'integer', description: 'Results', enum: [5, 10] },
            } },
            output: { results: { type: 'array', description: 'Hits' } },
          },
        }],
      },
    ],
  };
}

function mppDocument() {
  const service = (id: string, serviceUrl: string, endpoints: unknown[]) => ({
    id, name: id, serviceUrl, url: serviceUrl, description: `${id} service`, categories: ['ai'], tags: ['llm'],
    methods: { tempo: { intents: ['charge', 'session'], assets: [TEMPO_USDC] } }, endpoints,
  });
  const payment = (intent: string, amount: string, unitType?: string) => ({
    intent, method: 'tempo', currency: TEMPO_USDC, decimals: 6, description: 'paid', amount, ...(unitType ? { unitType } : {}),
  });
  return {
    version: 1,
    services: [
      service('chat', hostA, [{ method: 'POST', path: '/chat', description: 'Chat completions, streamed', payment: payment('session', '2', 'llm_token') }]),
      service('pay', hostB, [{ method: 'GET', path: '/pay', description: 'Pay here', payment: payment('charge', '20000') }]),
    ],
  };
}

const serviceA = () => new URL(hostA).host.replace(/[^a-z0-9]+/g, '-');
const serviceB = () => new URL(hostB).host.replace(/[^a-z0-9]+/g, '-');

const crawl = (at: string, probe = true) => runCrawl(db, {
  agent,
  directories: [toDirectoryConfig(`bazaar=${origin}/bazaar/discovery/resources`), toDirectoryConfig(`mpp=${origin}/mpp/api/services`)],
  discover: true, probe, timeoutMs: 3000, checkBudget: 20, now: () => new Date(at),
});

beforeAll(async () => {
  hostA = await listen(hostAHandler);
  hostB = await listen(hostBHandler);
  origin = await listen((req, res) => (req.url?.startsWith('/bazaar/') ? json(res, bazaarPage()) : json(res, mppDocument())));
  db = openDatabase(join(dir, 'index.db'));
  agent = createProbeAgent({ allow: parseAllowList('127.0.0.1') });
  await crawl('2026-11-01T00:00:00.000Z');
  const server = serveApp(createApp({ db, config: testConfig(), now: () => new Date('2026-11-01T01:00:00.000Z'), lookup: async () => [] }), { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  closers.push(() => server.close(true));
  api = new URL(server.url!).origin;
}, 30_000);

afterAll(async () => {
  await agent.dispatcher.close();
  await Promise.all(closers.map((close) => close()));
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${api}${path}`);
  return { status: response.status, body: await response.json() };
}

async function listOf(query: string): Promise<EndpointList> {
  const { status, body } = await get(`/api/v1/endpoints?${query}`);
  expect(status, query).toBe(200);
  return EndpointList.parse(body);
}

const byPath = (list: EndpointList) => Object.fromEntries(list.endpoints.map((e) => [new URL(e.url).pathname, e]));

describe('endpoint records from every directory and challenge', () => {
  it('reads each source into offers, input and output, the challenge authoritative', async () => {
    const endpoints = byPath(await listOf(`service=${serviceA()}`));
    expect(Object.keys(endpoints).sort()).toEqual(['/chat', '/extra', '/quote', '/report/%7Bid%7D', '/v1/search', '/v2/users/42']);
    for (const endpoint of Object.values(endpoints)) expect(endpoint.id).toMatch(/^[a-z0-9][a-z0-9._-]{0,99}$/);

    // One 402 carrying x402 and MPP: both offers, from the challenge.
    const quote = endpoints['/quote']!;
    expect(quote.offers.map((o) => [o.rail, o.scheme, o.seen_in, o.usd]).sort()).toEqual([
      ['mpp', 'charge', 'challenge', 0.01], ['x402', 'exact', 'challenge', 0.01],
    ]);
    expect(quote).toMatchObject({
      live: true, price: { usd: 0.01, display: '$0.01 / call' }, description: 'Quote a price', tags: ['finance'],
      input: {
        type: 'http', method: 'GET', body: null,
        query: { type: 'object', properties: { symbol: { type: 'string', description: 'Ticker' } }, required: ['symbol'] },
        example: { query: { symbol: 'ETH' } },
      },
      output: { example: { price: 3120.5 }, schema: { type: 'object', properties: { price: { type: 'number' } } } },
    });

    // v2 routeTemplate and an upto ceiling; the invalid query schema is dropped whole.
    expect(endpoints['/v2/users/42']).toMatchObject({
      route_template: '/v2/users/:id', price: { usd: 0.05, display: 'up to $0.05 / call' },
      offers: [{ rail: 'x402', scheme: 'upto', is_maximum: true, seen_in: 'challenge', amount: { atomic: '50000', decimal: '0.05' } }],
      input: { query: null, path: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, example: null },
    });

    // v1 outputSchema field maps as JSON Schema 2020-12.
    expect(endpoints['/v1/search']).toMatchObject({
      method: 'POST', price: { usd: 0.035 },
      input: {
        body_type: 'json',
        body: {
          type: 'object', required: ['query'],
          properties: { query: { type: 'string', description: 'What to search' }, count: { type: 'integer', description: 'Results', enum: [5, 10] } },
        },
      },
      output: { schema: { type: 'object', properties: { results: { type: 'array', description: 'Hits' } } } },
    });

    // The host's own OpenAPI document, in both x-payment-info shapes; /.well-known/x402 lists /extra.
    expect(endpoints['/v1/search']!.sources).toEqual(['bazaar', 'wellknown']);
    expect(endpoints['/report/%7Bid%7D']).toMatchObject({
      method: 'GET', route_template: '/report/:id', description: 'One report', docs_url: `${hostA}/docs`, sources: ['wellknown'],
      price: { usd: 0.05, display: '$0.05 / call' },
      input: {
        path: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        query: { type: 'object', properties: { format: { type: 'string', enum: ['pdf', 'html'], description: 'pdf or html' } } },
      },
      output: { mime_type: 'application/json', example: { title: 'Q3' } },
    });
    expect(endpoints['/report/%7Bid%7D']!.offers.map((o) => [o.rail, o.scheme, o.usd, o.seen_in])).toEqual([
      ['x402', 'exact', 0.05, 'wellknown'], ['mpp', 'charge', 0.05, 'wellknown'],
    ]);
    expect(endpoints['/extra']).toMatchObject({ sources: ['wellknown'], offers: [] });

    // An MPP session: a price per unit, not a ceiling; its deposit is no price.
    expect(endpoints['/chat']).toMatchObject({
      method: 'POST', price: { usd: 0.000002, display: '$0.000002 / llm_token' }, sources: ['mpp.dev'],
      offers: [{ rail: 'mpp', scheme: 'session', method: 'tempo', unit: 'llm_token', is_maximum: false, seen_in: 'challenge' }],
    });
  });

  it('keeps ids across crawls, and rails every rail the last valid challenge showed plus the directories', async () => {
    const before = (await listOf(`service=${serviceA()}`)).endpoints.map((e) => e.id).sort();
    // A discovery alone rewrites the endpoints from the directories: ids, challenge offers and rails stay.
    await crawl('2026-11-01T00:30:00.000Z', false);
    expect(openApiReads, 'a host\'s own documents are read at most daily').toBe(1);
    const after = await listOf(`service=${serviceA()}`);
    expect(after.endpoints.map((e) => e.id).sort()).toEqual(before);
    expect(byPath(after)['/quote']!.offers.every((o) => o.seen_in === 'challenge')).toBe(true);
    const services = ServiceList.parse((await get('/api/v1/services?limit=10')).body).services;
    const b = services.find((s) => s.id === serviceB());
    expect(b?.rails).toEqual(['mpp', 'x402']);
    expect(services.find((s) => s.id === serviceA())).toMatchObject({
      rails: ['mpp', 'x402'], endpoint_count: 6, price_range: { min_usd: 0.000002, max_usd: 0.05 },
    });
  });
});

describe('GET /api/v1/endpoints and /api/v1/endpoints/{id}', () => {
  it('filters by price, scheme, input and words, and orders by price', async () => {
    const paths = (list: EndpointList) => list.endpoints.map((e) => new URL(e.url).pathname);
    expect(paths(await listOf('sort=price'))).toEqual(['/chat', '/quote', '/pay', '/v1/search', '/report/%7Bid%7D', '/v2/users/42', '/extra']);
    expect(paths(await listOf('max_price_usd=0.04&sort=price'))).toEqual(['/chat', '/quote', '/pay', '/v1/search']);
    expect(paths(await listOf('scheme=session'))).toEqual(['/chat']);
    // /pay is listed as MPP but its challenge offers x402 alone: the challenge's offers stand. /report's host lists it.
    expect(paths(await listOf('rail=mpp&scheme=charge&sort=price'))).toEqual(['/quote', '/report/%7Bid%7D']);
    expect((await listOf('has_input=no')).endpoints.every((e) => e.input === null)).toBe(true);
    const search = await listOf('q=search');
    expect(search.page).toMatchObject({ sort: 'relevance', ignored: [] });
    expect(paths(search)[0]).toBe('/v1/search');
    expect((await listOf('q=search&colour=red&Rail=x')).page.ignored).toEqual(['Rail', 'colour']);
    const live = await listOf('live=YES');
    expect(live.counts.total).toBe(live.counts.live);
    expect(live.endpoints[0]!.service).toMatchObject({ live: true, flags: [] });
  });

  it('answers 400 naming a bad boolean or order, and 404 for an unknown id, as JSON', async () => {
    for (const [query, name] of [['live=maybe', 'live'], ['has_input=2', 'has_input'], ['sort=cheapest', 'sort']] as const) {
      const { status, body } = await get(`/api/v1/endpoints?${query}`);
      expect(status).toBe(400);
      expect(ErrorResponse.parse(body).error).toMatchObject({ code: 'missing_query', message: expect.stringContaining(`"${name}"`) });
    }
    for (const path of ['/api/v1/endpoints/no-such-endpoint', '/x402/discovery/nothing']) {
      const missing = await get(path);
      expect(missing.status, path).toBe(404);
      expect(ErrorResponse.parse(missing.body).error.code).toBe('not_found');
    }
  });

  it('answers one endpoint by id, the same record the service detail lists', async () => {
    const detail = ServiceDetail.parse((await get(`/api/v1/services/${serviceA()}`)).body);
    expect(detail.endpoints).toHaveLength(6);
    for (const listed of detail.endpoints) {
      const { status, body } = await get(`/api/v1/endpoints/${listed.id.toUpperCase()}`);
      expect(status).toBe(200);
      expect(Endpoint.parse(body)).toEqual(listed);
    }
  });

  it('answers the same over MCP: search_endpoints (20 by default) and get_endpoint', async () => {
    const client = new Client({ name: 'psi-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api}/mcp`)));
    try {
      const searched = await client.callTool({ name: 'search_endpoints', arguments: { rail: 'x402' } });
      const { generated_at: _a, ...viaMcp } = searched.structuredContent as EndpointList;
      const { generated_at: _b, ...viaRest } = await listOf('rail=x402&limit=20');
      expect(viaMcp).toEqual(viaRest);
      expect(viaMcp.page.limit).toBe(20);
      const id = viaRest.endpoints[0]!.id;
      const one = await client.callTool({ name: 'get_endpoint', arguments: { id } });
      expect(one.structuredContent).toEqual((await get(`/api/v1/endpoints/${id}`)).body);
    } finally {
      await client.close();
    }
  });
});

describe('the index as an x402 Bazaar, read with the protocol\'s own client', () => {
  const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: `${api}/x402` })).extensions.bazaar;

  it('lists and pages every x402 endpoint whose last check found a challenge, as the challenge stated it', async () => {
    const listed = await bazaar().listResources({ type: 'http' });
    expect(listed.x402Version).toBe(2);
    const paths = listed.items.map((item) => new URL(item.resource).pathname).sort();
    // The MPP-only session endpoint is no x402 resource.
    expect(paths).toEqual(['/pay', '/quote', '/v1/search', '/v2/users/42']);
    expect(listed.pagination).toEqual({ limit: 20, offset: 0, total: 4 });
    const first = await bazaar().listResources({ limit: 3 });
    const second = await bazaar().listResources({ limit: 3, offset: 3 });
    expect([...first.items, ...second.items].map((item) => item.resource)).toEqual(listed.items.map((item) => item.resource));
    const users = listed.items.find((item) => item.resource.endsWith('/v2/users/42'))!;
    expect(users.accepts).toEqual([expect.objectContaining({ scheme: 'upto', amount: '50000', network: 'eip155:8453' })]);
    const search = listed.items.find((item) => item.resource.endsWith('/v1/search'))!;
    expect(search).toMatchObject({ x402Version: 1, accepts: [expect.objectContaining({ maxAmountRequired: '35000' })] });
    expect(typeof search.lastUpdated).toBe('string');
    expect((await bazaar().listResources({ type: 'mcp' })).items).toEqual([]);
    expect((await bazaar().listResources({ scheme: 'upto' })).items.map((item) => item.resource)).toEqual([users.resource]);
    expect((await bazaar().listResources({ network: 'base' })).pagination.total).toBe(4);
  });

  it('answers extensions.bazaar where the input is known, each accepted by validateDiscoveryExtension', async () => {
    const { items } = await bazaar().listResources({ extensions: 'bazaar' });
    expect(items.length).toBeGreaterThanOrEqual(2);
    for (const item of items) {
      const extension = item.extensions?.bazaar;
      if (extension === undefined) continue;
      expect(validateDiscoveryExtension(extension as never), item.resource).toEqual({ valid: true });
    }
    const quote = items.find((item) => item.resource.endsWith('/quote'))!;
    expect(quote.extensions?.bazaar).toMatchObject({ info: { input: { type: 'http', method: 'GET', queryParams: { symbol: 'ETH' } }, output: { example: { price: 3120.5 } } } });
    const search = items.find((item) => item.resource.endsWith('/v1/search'))!;
    // No example was listed: one made from the schema passes it.
    expect(search.extensions?.bazaar).toMatchObject({ info: { input: { method: 'POST', bodyType: 'json', body: { query: 'string', count: 5 } } } });
  });

  it('searches by words, with a cursor over the matches', async () => {
    const found = await bazaar().search({ query: 'search' });
    expect(found.resources.map((item) => new URL(item.resource).pathname)).toEqual(['/v1/search']);
    expect(found).toMatchObject({ partialResults: false, pagination: { limit: 20, cursor: null } });
    const page = await bazaar().search({ query: '127.0.0.1', limit: 1 });
    expect(page.pagination?.cursor).toBe('1');
    const next = await bazaar().search({ query: '127.0.0.1', limit: 1, cursor: page.pagination!.cursor! });
    expect(next.resources[0]!.resource).not.toBe(page.resources[0]!.resource);
  });

  it('follows a failed check at once: the resource leaves the list, its total and its searches, and comes back', async () => {
    const quote = (await bazaar().listResources({})).items.find((item) => item.resource.endsWith('/quote'))!;
    const checkQuote = (ok: boolean, at: string) => recordEndpointChecks(db, [{
      service_id: serviceA(), method: 'GET', url: quote.resource, checked_at: at, ok, status_code: ok ? 402 : 500, latency_ms: 20, reason: ok ? null : 'server error (HTTP 500)',
    }]);
    // A phrase of two words is tested on the whole text; the total of a filter is kept until a change.
    expect((await bazaar().search({ query: '"quote a price"' })).resources.map((item) => item.resource)).toEqual([quote.resource]);
    expect((await bazaar().listResources({ network: 'base' })).pagination.total).toBe(4);
    checkQuote(false, '2026-11-01T00:30:00.000Z');
    const listed = await bazaar().listResources({ network: 'base' });
    expect(listed.pagination.total).toBe(3);
    expect(listed.items.map((item) => item.resource)).not.toContain(quote.resource);
    expect((await bazaar().search({ query: '"quote a price"' })).resources).toEqual([]);
    checkQuote(true, '2026-11-01T00:40:00.000Z');
    expect((await bazaar().listResources({ network: 'base' })).pagination.total).toBe(4);
    expect((await bazaar().search({ query: 'quote price' })).resources.map((item) => item.resource)).toEqual([quote.resource]);
  });
});
