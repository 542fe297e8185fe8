import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeServiceFlags } from '../data/flags.ts';
import { recordProbes } from '../data/probes.ts';
import { makeService } from '../data/testing.ts';
import { ErrorResponse, FLAGS, ServiceList, SORTS, SOURCE_KINDS } from '../domain/schemas.ts';
import { serveApp } from './app.ts';
import { createTestApp, TEST_NOW } from './testing.ts';

/*
 * The list's newer parameters over a real socket: every sort and filter is read by the operation's schema, a bad value
 * of a newer parameter answers 400 naming what it allows, the older ones stay lenient, and /openapi.json describes it all.
 */

const hour = (hours: number) => new Date(TEST_NOW.getTime() - hours * 3_600_000).toISOString();

let origin = '';
let close = async () => {};

beforeAll(async () => {
  const test = createTestApp([
    makeService({ id: 'a-test', price: { usd: 0.5, display: '$0.50 / call' }, category: 'Data', facilitator: 'https://x402.org/facilitator' }),
    makeService({ id: 'b-test', price: { usd: 0.01, display: '$0.01 / call' }, category: 'ai', sources: [{ source: 'mpp.dev', url: null }] }),
    makeService({ id: 'c-test', price: { usd: null, display: null }, category: 'data' }),
    makeService({ id: 'd-test', price: { usd: 0.01, display: '$0.01 / call' }, category: 'search', facilitator: 'https://api.cdp.coinbase.com/platform/v2/x402' }),
  ]);
  // b answers every check fast; d half of them, slowly; a never answered; c was never checked.
  recordProbes(test.db, [1, 2].flatMap((h) => [
    { service_id: 'b-test', probed_at: hour(h), ok: true, status_code: 402, method: 'GET', latency_ms: 50, reason: null, detected_rails: ['x402' as const] },
    { service_id: 'd-test', probed_at: hour(h), ok: h === 1, status_code: h === 1 ? 402 : 500, method: 'GET', latency_ms: 400, reason: h === 1 ? null : 'server error', detected_rails: [] },
    { service_id: 'a-test', probed_at: hour(h), ok: false, status_code: null, method: 'GET', latency_ms: null, reason: 'timed out', detected_rails: [] },
  ]));
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  close = () => server.close(true);
});
afterAll(() => close());

async function list(query: string): Promise<ServiceList> {
  const response = await fetch(`${origin}/api/v1/services?${query}`);
  expect(response.status, query).toBe(200);
  return ServiceList.parse(await response.json());
}
const ids = (page: ServiceList) => page.services.map((service) => service.id);

describe('GET /api/v1/services: sort and the newer filters', () => {
  it('orders by each sort, unknown values last, ties by id, and reports the order applied', async () => {
    expect(ids(await list('sort=price'))).toEqual(['b-test', 'd-test', 'a-test', 'c-test']);
    expect(ids(await list('sort=uptime'))).toEqual(['b-test', 'd-test', 'a-test', 'c-test']);
    expect(ids(await list('sort=latency'))).toEqual(['b-test', 'd-test', 'a-test', 'c-test']);
    expect((await list('sort=PRICE')).page.sort).toBe('price');
    // The default: quality without q (live b and d, b with the better uptime; then a, checked, before c, never), relevance with it.
    expect(ids(await list(''))).toEqual(['b-test', 'd-test', 'a-test', 'c-test']);
    expect((await list('')).page.sort).toBe('quality');
    expect((await list('q=paid')).page.sort).toBe('relevance');
    expect((await list('q=paid&sort=live')).page.sort).toBe('live');
    // relevance needs q: without it the list is read in quality order, and says so.
    expect((await list('sort=relevance')).page.sort).toBe('quality');
    expect((await list('sort=relevance&q=paid')).page.sort).toBe('relevance');
  });

  it('gives each service its 30-day figures', async () => {
    const services = Object.fromEntries((await list('')).services.map((service) => [service.id, service]));
    expect(services['b-test']).toMatchObject({ uptime_30d: 1, checks_30d: 2, median_latency_ms_30d: 50, flags: [], owner_verified: false });
    expect(services['d-test']).toMatchObject({ uptime_30d: 0.5, checks_30d: 2, median_latency_ms_30d: 400 });
    expect(services['a-test']).toMatchObject({ uptime_30d: 0, checks_30d: 2, median_latency_ms_30d: null });
    expect(services['c-test']).toMatchObject({ uptime_30d: null, checks_30d: 0, median_latency_ms_30d: null });
  });

  it('filters by price, category, facilitator, source and flags, with counts over the match', async () => {
    const cheap = await list('max_price_usd=0.01');
    expect(ids(cheap)).toEqual(['b-test', 'd-test']);
    expect(cheap.counts).toEqual({ total: 2, live: 2, dual_rail: 0 });
    expect(ids(await list('max_price_usd=0'))).toEqual([]);
    expect(ids(await list('category=DATA&sort=price'))).toEqual(['a-test', 'c-test']);
    expect(ids(await list('facilitator=Coinbase'))).toEqual(['d-test']);
    expect(ids(await list('source=mpp.dev'))).toEqual(['b-test']);
    expect((await list('flags=none')).counts.total).toBe(4);
    expect((await list('flag=wildcard_402')).counts.total).toBe(0);
  });

  it('answers 400 missing_query naming the parameter and what it allows, for each newer parameter', async () => {
    const cases: Array<[string, string, readonly string[]]> = [
      ['sort=cheapest', 'sort', SORTS],
      ['source=nowhere', 'source', SOURCE_KINDS],
      ['flag=shady', 'flag', FLAGS],
      ['flags=some', 'flags', ['none']],
    ];
    for (const [query, name, allowed] of cases) {
      const response = await fetch(`${origin}/api/v1/services?${query}`);
      expect(response.status, query).toBe(400);
      const { error } = ErrorResponse.parse(await response.json());
      expect(error.code).toBe('missing_query');
      expect(error.message).toContain(`"${name}"`);
      for (const value of allowed) expect(error.message).toContain(value);
    }
    for (const query of ['max_price_usd=cheap', 'max_price_usd=-0.5', 'max_price_usd=1e']) {
      const response = await fetch(`${origin}/api/v1/services?${query}`);
      expect(response.status, query).toBe(400);
      const { error } = ErrorResponse.parse(await response.json());
      expect(error.message).toMatch(/"max_price_usd".*number of US dollars, 0 or more/);
    }
  });

  it('keeps the older parameters lenient', async () => {
    const clamped = await list('limit=9999&offset=-3&rail=nope-rail');
    expect(clamped.page).toEqual({ limit: 500, offset: 0, next_offset: null, sort: 'quality', ignored: [] });
    expect(clamped.counts.total).toBe(0);
    expect((await list('limit=abc&live=1')).page.limit).toBe(100);
    expect(ids(await list('chain=eip155:8453&limit=1')).length).toBe(1);
  });

  it('reads live as true/false/1/0/yes/no in any case and refuses any other value, naming the words it reads', async () => {
    for (const word of ['true', 'TRUE', '1', 'yes', 'Yes']) expect(ids(await list(`live=${word}`)), word).toEqual(['b-test', 'd-test']);
    for (const word of ['false', '0', 'no', 'NO']) expect(ids(await list(`live=${word}&sort=price`)), word).toEqual(['a-test', 'c-test']);
    for (const query of ['live=maybe', 'live=on', 'live=2', 'live=truee']) {
      const response = await fetch(`${origin}/api/v1/services?${query}`);
      expect(response.status, query).toBe(400);
      const { error } = ErrorResponse.parse(await response.json());
      expect(error.code).toBe('missing_query');
      expect(error.message).toMatch(/^The query parameter "live" must be one of true, false, 1, 0, yes, no/);
    }
  });

  it('names in page.ignored, sorted, every parameter it does not know, and applies the rest', async () => {
    const page = await list('sort_by=price&chain_id=1&live=yes&Live=no&sort=price');
    expect(page.page.ignored).toEqual(['Live', 'chain_id', 'sort_by']);
    expect(ids(page)).toEqual(['b-test', 'd-test']);
    expect((await list('rail=x402')).page.ignored).toEqual([]);
  });

  it('walks every sort page by page without repeating or skipping a service', async () => {
    for (const sort of SORTS) {
      const everything = ids(await list(`sort=${sort}&q=paid`));
      const walked: string[] = [];
      for (let offset: number | null = 0; offset !== null;) {
        const page: ServiceList = await list(`sort=${sort}&q=paid&limit=1&offset=${offset}`);
        walked.push(...ids(page));
        offset = page.page.next_offset;
      }
      expect(walked, sort).toEqual(everything);
      expect(new Set(walked).size, sort).toBe(4);
    }
  });
});

describe('GET /openapi.json', () => {
  it('validates as OpenAPI 3.1 and lists every new parameter and field', async () => {
    const document = await (await fetch(`${origin}/openapi.json`)).json();
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const params = document.paths['/api/v1/services'].get.parameters.map((parameter: { name: string }) => parameter.name);
    expect(params).toEqual(expect.arrayContaining(['sort', 'category', 'max_price_usd', 'facilitator', 'source', 'flag', 'flags']));
    const sort = document.paths['/api/v1/services'].get.parameters.find((parameter: { name: string }) => parameter.name === 'sort');
    expect(sort.schema.enum).toEqual([...SORTS]);
    const schemas = document.components.schemas;
    expect(Object.keys(schemas.Service.properties)).toEqual(expect.arrayContaining(['uptime_30d', 'checks_30d', 'median_latency_ms_30d', 'flags', 'owner_verified']));
    expect(Object.keys(schemas.ServiceDetail.properties)).toContain('uptime');
    expect(Object.keys(schemas.Stats.properties)).toEqual(expect.arrayContaining(['by_rail', 'by_chain', 'by_asset']));
    expect(Object.keys(schemas.ServiceList.properties.page.properties)).toEqual(expect.arrayContaining(['sort', 'ignored']));
    expect(document.paths['/api/v1/services'].get['x-mcp-tool']).toBe('search_services');
  });
});

/** The app of `test` on a real socket for the length of `run`. */
async function withServer(test: ReturnType<typeof createTestApp>, run: (base: string) => Promise<void>): Promise<void> {
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  try {
    await run(new URL(server.url!).origin);
  } finally {
    await server.close(true);
  }
}

describe('quality and relevance over HTTP', () => {
  it('orders by quality (live, unflagged, uptime, directories, id) and by relevance, and pages each exactly', async () => {
    const test = createTestApp([
      makeService({ id: 'flagged-test', name: 'Weather flagged', description: 'Weather forecasts' }),
      makeService({ id: 'two-dirs-test', name: 'Forecast hub', description: 'Hourly weather', sources: [{ source: 'bazaar', url: null }, { source: 'mpp.dev', url: null }] }),
      makeService({ id: 'one-dir-test', name: 'Weather now', description: 'Current weather' }),
      makeService({ id: 'dark-test', name: 'Dark', description: 'Was a weather API' }),
      makeService({ id: 'unknown-test', name: 'Unknown', description: 'Never checked; an everyweather API' }),
    ]);
    // Live: flagged (1/1, flagged), two-dirs and one-dir (2/2 each); dark answered 1 of 2, last not; unknown never.
    recordProbes(test.db, [1, 2].flatMap((h) => [
      { service_id: 'two-dirs-test', probed_at: hour(h), ok: true, status_code: 402, method: 'GET', latency_ms: 50, reason: null, detected_rails: ['x402' as const] },
      { service_id: 'one-dir-test', probed_at: hour(h), ok: true, status_code: 402, method: 'GET', latency_ms: 50, reason: null, detected_rails: ['x402' as const] },
      { service_id: 'dark-test', probed_at: hour(h), ok: h === 2, status_code: h === 2 ? 402 : 500, method: 'GET', latency_ms: 50, reason: h === 2 ? null : 'server error', detected_rails: [] },
    ]));
    recordProbes(test.db, [{ service_id: 'flagged-test', probed_at: hour(1), ok: true, status_code: 402, method: 'GET', latency_ms: 50, reason: null, detected_rails: ['x402'] }]);
    writeServiceFlags(test.db, 'flagged-test', ['wildcard_402']);
    await withServer(test, async (base) => {
      const walk = async (query: string, limit: number) => {
        const seen: string[] = [];
        for (let offset: number | null = 0; offset !== null;) {
          const page = ServiceList.parse(await (await fetch(`${base}/api/v1/services?${query}&limit=${limit}&offset=${offset}`)).json());
          seen.push(...ids(page));
          offset = page.page.next_offset;
        }
        return seen;
      };
      const quality = ['two-dirs-test', 'one-dir-test', 'flagged-test', 'dark-test', 'unknown-test'];
      // Relevance: "weather" as a word of the name (4) above one of the description (2) above inside another word (0).
      const relevance = ['one-dir-test', 'flagged-test', 'two-dirs-test', 'dark-test', 'unknown-test'];
      for (const limit of [1, 2, 5]) {
        expect(await walk('sort=quality', limit), `quality by ${limit}`).toEqual(quality);
        expect(await walk('x=1', limit), `default by ${limit}`).toEqual(quality);
        expect(await walk('q=weather', limit), `relevance by ${limit}`).toEqual(relevance);
      }
      const page = ServiceList.parse(await (await fetch(`${base}/api/v1/services?q=weather`)).json());
      expect(page.page.sort).toBe('relevance');
      // Two words: the services holding both, ranked; then those holding one, in quality order, past counts.total.
      const partly = ['flagged-test', 'two-dirs-test', 'one-dir-test', 'dark-test', 'unknown-test'];
      for (const limit of [1, 2, 5]) expect(await walk('q=weather%20forecast', limit), `two words by ${limit}`).toEqual(partly);
      const both = ServiceList.parse(await (await fetch(`${base}/api/v1/services?q=weather%20forecast&limit=2`)).json());
      expect(both.counts.total).toBe(2);
      expect(both.page.next_offset).toBe(2);
    });
  });
});

describe('names', () => {
  it('names a service whose directory name is a bare protocol word or a slug of its host by its host, in the list and the detail', async () => {
    const test = createTestApp([
      makeService({ id: 'x402-example-com', name: 'x402', endpoint: 'https://x402.example.com/' }),
      makeService({ id: 'api-shop-test', name: 'pay', endpoint: 'https://api.shop.test/v1/pay' }),
      makeService({ id: 'weather-test', name: 'Weather now', endpoint: 'https://weather.test/now' }),
    ]);
    await withServer(test, async (base) => {
      const page = ServiceList.parse(await (await fetch(`${base}/api/v1/services?sort=newest`)).json());
      expect(Object.fromEntries(page.services.map((service) => [service.id, service.name]))).toEqual({
        'x402-example-com': 'x402.example.com', 'api-shop-test': 'api.shop.test', 'weather-test': 'Weather now',
      });
      const detail = await (await fetch(`${base}/api/v1/services/api-shop-test`)).json();
      expect(detail.name).toBe('api.shop.test');
    });
  });
});
