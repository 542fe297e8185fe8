import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList } from '../net/guard.ts';
import { CHECK_FLEET, startCheckFleet } from '../crawler/testing/check-fleet.ts';
import { toServiceId } from '../domain/service-id.ts';
import { upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { CheckResult, PROBLEM_CODES } from '../domain/check.ts';
import { ErrorResponse } from '../domain/schemas.ts';
import { createApp, serveApp } from './app.ts';
import { CHECK_RATE_LIMIT, type Config } from './config.ts';
import { postJson, testConfig, TEST_NOW } from './testing.ts';

/*
 * Sellers' checks over real sockets: the app on loopback checking a local fleet with one known defect per endpoint
 * (crawler/testing/check-fleet.ts), a second host on another loopback address that the SSRF guard must refuse without
 * connecting, and the same check over MCP through the official SDK client.
 */

let fleet: Awaited<ReturnType<typeof startCheckFleet>>;
let forbidden: Awaited<ReturnType<typeof startCheckFleet>>;
const servers: Array<ReturnType<typeof serveApp>> = [];

async function listen(config: Partial<Config> = {}, lookup?: (host: string) => Promise<string[]>): Promise<string> {
  const db = openTestDatabase();
  upsertServices(db, [makeService({ id: toServiceId(fleet.origin), endpoint: `${fleet.origin}/valid-x402` })], TEST_NOW.toISOString());
  const app = createApp({ db, config: testConfig({ allowPrivateTargets: parseAllowList('127.0.0.1'), checkRateLimit: { limit: 1000, windowSeconds: 60 }, ...config }), now: () => new Date(), lookup });
  const server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  servers.push(server);
  return new URL(server.url!).origin;
}

let origin = '';
beforeAll(async () => {
  fleet = await startCheckFleet();
  forbidden = await startCheckFleet('127.0.0.2');
  origin = await listen();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close(true)));
  await Promise.all([fleet.close(), forbidden.close()]);
});

async function check(at: string, body: unknown): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const response = await fetch(`${at}/api/v1/check`, postJson(body));
  return { status: response.status, headers: response.headers, json: await response.json() };
}

describe('POST /api/v1/check', () => {
  it('has a fleet endpoint for every problem code', () => {
    const covered = new Set(CHECK_FLEET.flatMap((endpoint) => endpoint.problems.map((problem) => problem.code)));
    expect([...covered].sort()).toEqual([...PROBLEM_CODES].sort());
  });

  it.each(CHECK_FLEET)('finds exactly the known defects of $path', async ({ path, live, problems }) => {
    const { status, json } = await check(origin, { url: `${fleet.origin}${path}` });
    expect(status).toBe(200);
    const result = CheckResult.parse(json);
    expect(result.live).toBe(live);
    expect(result.problems.map(({ code, where }) => ({ code, where }))).toEqual(problems);
    for (const problem of result.problems) {
      expect(problem.message.length).toBeGreaterThan(10);
      expect(problem.fix.length).toBeGreaterThan(10);
      expect(problem.rule.length).toBeGreaterThan(10);
    }
  });

  it('decodes a valid x402 v2 challenge with its offer, and the listing of its host', async () => {
    const result = CheckResult.parse((await check(origin, { url: `${fleet.origin}/valid-x402` })).json);
    expect(result).toMatchObject({ status_code: 402, live: true, listed: { service_id: toServiceId(fleet.origin), flags: [] }, submit: null });
    expect(result.challenges).toHaveLength(1);
    expect(result.challenges[0]).toMatchObject({ signal: 'x402-v2-header', valid: true, decoded: { x402Version: 2 } });
    expect(result.challenges[0]!.offers).toEqual([{
      rail: 'x402', scheme: 'exact', method: null, network: 'eip155:8453', chain: 'base',
      asset: { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }, amount: { atomic: '10000', decimal: '0.01' },
      usd: 0.01, unit: 'call', is_maximum: false, pay_to: '0x1111111111111111111111111111111111111111', facilitator: null, seen_in: 'challenge',
    }]);
  });

  it('decodes a valid MPP challenge with its offer', async () => {
    const result = CheckResult.parse((await check(origin, { url: `${fleet.origin}/valid-mpp` })).json);
    expect(result.challenges.map((challenge) => challenge.signal)).toEqual(['mpp-header']);
    expect(result.challenges[0]!.offers[0]).toMatchObject({ rail: 'mpp', scheme: 'charge', method: 'tempo', chain: 'tempo', usd: 0.01, unit: 'call' });
  });

  it('says what the host publishes for discovery, found or not, with the prices each states', async () => {
    const result = CheckResult.parse((await check(origin, { url: `${fleet.origin}/price-mismatch` })).json);
    expect(result.discovery.x402_well_known).toMatchObject({ url: `${fleet.origin}/.well-known/x402`, found: true, valid: true, detail: null });
    expect(result.discovery.x402_well_known.offers.map((offer) => [offer.url, offer.usd])).toEqual([[`${fleet.origin}/valid-x402`, 0.01], [`${fleet.origin}/price-mismatch`, 0.05]]);
    expect(result.discovery.openapi).toMatchObject({ found: true, valid: true });
    expect(result.discovery.openapi.offers.map((offer) => [offer.url, offer.usd])).toEqual([[`${fleet.origin}/valid-mpp`, null], [`${fleet.origin}/price-mismatch`, 0.05]]);
    expect(result.discovery.acp).toMatchObject({ found: false, valid: null, detail: 'answered 404', offers: [] });
  });

  it('answers how to submit a host the index does not list', async () => {
    const unlisted = `${origin}/nothing-here`;
    const result = CheckResult.parse((await check(origin, { url: unlisted })).json);
    expect(result.listed).toBeNull();
    expect(result.submit).toEqual({ method: 'POST', url: `${origin}/api/v1/submit`, body: { endpoint: unlisted } });
    expect(result.problems.map(({ code, where }) => ({ code, where }))).toEqual([{ code: 'no_challenge', where: 'status 404' }]);
  });

  it('refuses private addresses without a connection, also behind a redirect', async () => {
    const refused = await check(origin, { url: `${forbidden.origin}/valid-x402` });
    expect(refused.status).toBe(400);
    expect(ErrorResponse.parse(refused.json).error).toMatchObject({ code: 'invalid_endpoint', message: expect.stringContaining('private address') });
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://localhost:1/', 'ftp://example.com/']) {
      expect((await check(origin, { url })).json).toMatchObject({ error: { code: 'invalid_endpoint' } });
    }
    const redirected = CheckResult.parse((await check(origin, { url: `${fleet.origin}/redirect?to=${encodeURIComponent(`${forbidden.origin}/valid-x402`)}` })).json);
    expect(redirected.problems).toMatchObject([{ code: 'no_challenge', where: 'connection', message: expect.stringContaining('refused: private address') }]);
    const named = await listen({}, async (host) => (host === 'private.test' ? ['127.0.0.2'] : []));
    expect((await check(named, { url: `http://private.test:${new URL(forbidden.origin).port}/valid-x402` })).json)
      .toMatchObject({ error: { code: 'invalid_endpoint', message: expect.stringContaining('private address') } });
    expect(forbidden.requests).toEqual([]);
  });

  it('answers bad input in the Error shape', async () => {
    expect((await check(origin, {})).json).toMatchObject({ error: { code: 'invalid_endpoint', message: expect.stringContaining('"url"') } });
    expect((await check(origin, { url: `${fleet.origin}/free`, method: 'BREW' })).json).toMatchObject({ error: { code: 'invalid_json', message: expect.stringContaining('"method"') } });
    const notJson = await fetch(`${origin}/api/v1/check`, postJson('{nope'));
    expect(notJson.status).toBe(400);
    expect(notJson.headers.get('content-type')).toContain('application/json');
  });

  it('allows 6 checks a minute per client, then 429 rate_limited with Retry-After', async () => {
    const limited = await listen({ checkRateLimit: CHECK_RATE_LIMIT });
    for (let i = 0; i < CHECK_RATE_LIMIT.limit; i++) expect((await check(limited, { url: `${fleet.origin}/free` })).status).toBe(200);
    const over = await check(limited, { url: `${fleet.origin}/free` });
    expect(over.status).toBe(429);
    expect(ErrorResponse.parse(over.json).error.code).toBe('rate_limited');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('MCP check_endpoint', () => {
  it('answers what the REST route answers, through the official SDK client', async () => {
    const client = new Client({ name: 'psi-check-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'check_endpoint')?.annotations?.readOnlyHint).toBe(true);
      expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(24 * 1024);
      const url = `${fleet.origin}/amount-decimal`;
      const result = await client.callTool({ name: 'check_endpoint', arguments: { url } });
      const rest = CheckResult.parse((await check(origin, { url })).json);
      const structured = CheckResult.parse(result.structuredContent);
      const timeless = ({ checked_at: _, latency_ms: __, ...rest }: CheckResult) => rest;
      expect(timeless(structured)).toEqual(timeless(rest));
      expect(structured.problems.map((problem) => problem.code)).toEqual(['x402_amount_not_integer']);
      const refused = await client.callTool({ name: 'check_endpoint', arguments: { url: 'http://10.0.0.1/' } });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: { code: 'invalid_endpoint' } });
    } finally {
      await client.close();
    }
  });
});
