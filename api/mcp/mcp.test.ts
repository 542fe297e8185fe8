import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../data/db.ts';
import { recordProbe } from '../../data/probes.ts';
import { upsertServices } from '../../data/services.ts';
import { makeService } from '../../data/testing.ts';
import { ChangeList, ErrorResponse, IndexStatus, ServiceDetail, ServiceList, Stats, SubmitResult } from '../../domain/schemas.ts';
import { Purchase, PurchaseCatalog } from '../purchase/schemas.ts';
import { createApp, serveApp } from '../app.ts';
import { testConfig, TEST_NOW } from '../testing.ts';

/*
 * The MCP server through the official SDK's own Client: over Streamable HTTP against the real app on a real socket,
 * and over stdio against `npm run mcp` as a child process, both on the same SQLite file as a REST server, so every
 * tool's answer can be compared with the REST route's body for the same arguments.
 */

const TOOLS = ['search_services', 'get_service', 'get_services', 'search_endpoints', 'get_endpoint', 'get_stats', 'get_status', 'get_changes', 'submit_service',
  'get_submission', 'check_endpoint',
  'list_demo_services', 'create_purchase', 'get_purchase'];

const dir = mkdtempSync(join(tmpdir(), 'psi-mcp-'));
const databasePath = join(dir, 'index.db');
const servers: Array<ReturnType<typeof serveApp>> = [];
let origin = '';

beforeAll(async () => {
  const db = openDatabase(databasePath);
  upsertServices(db, [
    makeService({ id: 'alpha-test', name: 'Alpha weather', price: { usd: 0.05, display: '$0.05 / call' } }),
    makeService({ id: 'beta-test', name: 'Beta search', rails: ['x402', 'mpp'], price: { usd: 0.001, display: '$0.001 / call' } }),
    makeService({ id: 'gamma-test', name: 'Gamma weather', price: { usd: null, display: null } }),
  ], TEST_NOW.toISOString());
  recordProbe(db, { service_id: 'beta-test', probed_at: TEST_NOW.toISOString(), ok: true, status_code: 402, method: 'GET', latency_ms: 80, reason: null, detected_rails: ['x402'] });
  const app = createApp({ db, config: testConfig(), now: () => new Date(), lookup: async () => ['93.184.215.14'] });
  const server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  servers.push(server);
  origin = new URL(server.url!).origin;
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close(true)));
  rmSync(dir, { recursive: true, force: true });
});

async function rest(path: string, init?: RequestInit): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${origin}${path}`, init);
  return { status: response.status, json: await response.json() };
}

/** A body without the time it was made, which differs between any two answers. */
const withoutTime = ({ generated_at: _, ...rest }: Record<string, unknown>) => rest;

async function connectHttp(): Promise<Client> {
  const client = new Client({ name: 'psi-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
  return client;
}

async function connectStdio(): Promise<Client> {
  const client = new Client({ name: 'psi-test', version: '1.0.0' });
  const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  await client.connect(new StdioClientTransport({
    command: 'npm', args: ['run', '--silent', 'mcp'], cwd: process.cwd(), env: { ...env, DATABASE_PATH: databasePath, BASE_URL: 'http://index.test' }, stderr: 'pipe',
  }));
  return client;
}

type ToolResult = Awaited<ReturnType<Client['callTool']>>;
const structured = (result: ToolResult) => result.structuredContent as Record<string, unknown>;
/** A failure's Error, which travels as the text content (a client checks structuredContent against the output schema). */
const errorOf = (result: ToolResult) => {
  expect(result.structuredContent).toBeUndefined();
  return ErrorResponse.parse(JSON.parse((result.content as Array<{ text: string }>)[0]!.text));
};

// Tools are built on first use (api/mcp/server.ts): a process whose first request calls one, before any listing.
it('answers a tool called before any listing, its arguments checked, then lists every tool', async () => {
  const client = await connectStdio();
  try {
    const refused = await client.callTool({ name: 'get_services', arguments: { ids: 'beta-test' } });
    expect(refused.isError).toBe(true);
    expect(errorOf(refused).error.message).toContain('The argument `ids` must be array; got "beta-test".');
    const found = await client.callTool({ name: 'search_services', arguments: { q: 'weather' } });
    expect((structured(found).services as Array<{ id: string }>).map((service) => service.id).sort()).toEqual(['alpha-test', 'gamma-test']);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
  } finally {
    await client.close();
  }
}, 30_000);

describe.each([
  ['Streamable HTTP at /mcp', connectHttp],
  ['stdio (npm run mcp)', connectStdio],
])('MCP over %s', (_transport, connect) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('names itself and lists the tools with input and output schemas, the reads annotated read-only', async () => {
    expect(client.getServerVersion()?.name).toBe('payable-service-index');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(!['submit_service', 'create_purchase'].includes(tool.name));
    }
    const search = tools.find((tool) => tool.name === 'search_services')!;
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['sort', 'max_price_usd', 'category', 'facilitator', 'source', 'flag', 'flags', 'q', 'limit']));
    expect(tools.find((tool) => tool.name === 'get_service')!.inputSchema.required).toEqual(['id']);
    const changes = tools.find((tool) => tool.name === 'get_changes')!;
    expect(Object.keys(changes.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['after', 'service', 'types']));
    expect(Object.keys(changes.inputSchema.properties ?? {})).not.toContain('type');
  });

  it('answers get_changes {after, service, types} with exactly the REST change log', async () => {
    const result = await client.callTool({ name: 'get_changes', arguments: { service: 'beta-test', types: ['listed', 'went_live'] } });
    expect(result.isError).toBeFalsy();
    const page = ChangeList.parse(structured(result));
    expect(page.changes.map((change) => change.type)).toEqual(['listed', 'went_live']);
    expect(withoutTime(structured(result))).toEqual(withoutTime((await rest('/api/v1/changes?service=beta-test&type=listed,went_live')).json));
    const after = page.changes[0]!.id;
    const next = ChangeList.parse(structured(await client.callTool({ name: 'get_changes', arguments: { after, service: 'beta-test' } })));
    expect(next.changes.map((change) => change.type)).toEqual(['went_live']);
    const refused = errorOf(await client.callTool({ name: 'get_changes', arguments: { types: ['went_up'] } }));
    expect(refused.error).toMatchObject({ code: 'missing_query' });
    expect(refused.error.message).toContain('went_dark');
  });

  it('answers search_services with exactly the REST list for the same arguments', async () => {
    const result = await client.callTool({ name: 'search_services', arguments: { sort: 'price', max_price_usd: 0.05, limit: 2 } });
    expect(result.isError).toBeFalsy();
    const list = ServiceList.parse(structured(result));
    expect(list.services.map((service) => service.id)).toEqual(['beta-test', 'alpha-test']);
    expect(list.page).toMatchObject({ sort: 'price', limit: 2 });
    const { json } = await rest('/api/v1/services?sort=price&max_price_usd=0.05&limit=2');
    expect(withoutTime(structured(result))).toEqual(withoutTime(json));
    const text = (result.content as Array<{ type: string; text: string }>)[0]!;
    expect(withoutTime(JSON.parse(text.text))).toEqual(withoutTime(json));
  });

  it('answers every read tool as its route does', async () => {
    const pairs: Array<[string, Record<string, unknown>, string, RequestInit?]> = [
      ['get_service', { id: 'Beta-Test' }, '/api/v1/services/beta-test'],
      ['get_services', { ids: ['beta-test', 'nope-test'] }, '/api/v1/services/batch', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids: ['beta-test', 'nope-test'] }) }],
      ['get_stats', {}, '/api/v1/stats'],
      ['list_demo_services', {}, '/api/v1/purchase'],
    ];
    for (const [name, args, path, init] of pairs) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBeFalsy();
      const { json } = await rest(path, init);
      if (name === 'list_demo_services') {
        // Over stdio the catalog's URLs name BASE_URL, over HTTP the origin asked: compare what does not depend on it.
        const catalog = PurchaseCatalog.parse(structured(result));
        expect(catalog.services.map((service) => service.id)).toEqual((json as { services: Array<{ id: string }> }).services.map((service) => service.id));
      } else {
        expect(withoutTime(structured(result)), name).toEqual(withoutTime(json));
      }
    }
    expect(ServiceDetail.parse(structured(await client.callTool({ name: 'get_service', arguments: { id: 'beta-test' } }))).probes).toHaveLength(1);
    expect(Stats.parse(structured(await client.callTool({ name: 'get_stats', arguments: {} }))).by_rail).toMatchObject({ x402: 3, mpp: 1 });
  });

  it('submits, follows a submission and creates and reads a purchase', async () => {
    const submitted = await client.callTool({ name: 'submit_service', arguments: { endpoint: `https://mcp-${Math.random().toString(36).slice(2)}.example.com/pay`, name: 'Via MCP' } });
    expect(submitted.isError).toBeFalsy();
    const result = SubmitResult.parse(structured(submitted));
    expect(result.status).toBe('queued');
    const followed = await client.callTool({ name: 'get_submission', arguments: { id: result.id } });
    expect(withoutTime(structured(followed))).toEqual(withoutTime((await rest(`/api/v1/submissions/${result.id}`)).json));

    const created = await client.callTool({ name: 'create_purchase', arguments: { service_id: 'index-demo-market-data', params: { asset: 'ETH' } } });
    expect(created.isError).toBeFalsy();
    const purchase = Purchase.parse(structured(created));
    expect(purchase.status).toBe('awaiting_approval');
    const read = await client.callTool({ name: 'get_purchase', arguments: { id: purchase.id } });
    expect(Purchase.parse(structured(read)).id).toBe(purchase.id);
  });

  it('answers a failure as isError with the Error shape the route gives', async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['get_service', { id: 'no-such-test' }, 'not_found', '/api/v1/services/no-such-test'],
      ['get_services', { ids: [] }, 'invalid_ids', ''],
      ['submit_service', { endpoint: 'ftp://example.com/x' }, 'invalid_endpoint', ''],
      ['create_purchase', { service_id: 'index-demo-market-data', params: { asset: 'NOPE' } }, 'missing_query', ''],
      ['get_purchase', { id: 'pur_nope' }, 'not_found', ''],
    ];
    for (const [name, args, code, path] of cases) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      const error = errorOf(result);
      expect(error.error.code, name).toBe(code);
      if (path) expect((await rest(path)).json, name).toEqual(error);
    }
  });

  it('answers an argument of the wrong type or value as isError naming the argument, with the code the route gives', async () => {
    const cases: Array<[string, Record<string, unknown>, string, string, string?]> = [
      ['search_services', { sort: 'cheapest' }, 'missing_query', 'The argument `sort` must be one of quality, live, price, uptime, latency, newest, relevance; got "cheapest".', '/api/v1/services?sort=cheapest'],
      ['search_services', { max_price_usd: -1 }, 'missing_query', 'The argument `max_price_usd` must be >= 0; got -1.', '/api/v1/services?max_price_usd=-1'],
      ['search_services', { limit: 'ten' }, 'missing_query', 'The argument `limit` must be integer; got "ten".'],
      ['search_services', { limit: 1000 }, 'missing_query', 'The argument `limit` must be <= 500; got 1000.'],
      ['get_service', { id: 5 }, 'missing_query', 'The argument `id` must be string; got 5.'],
      ['get_services', { ids: 'beta-test' }, 'invalid_ids', 'The argument `ids` must be array; got "beta-test".'],
      ['get_changes', { types: ['went_up'] }, 'missing_query', 'The argument `types` (at types.0) must be one of listed, went_live, went_dark'],
      ['submit_service', {}, 'invalid_endpoint', 'The argument `endpoint` is required.'],
    ];
    for (const [name, args, code, message, path] of cases) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      const { error } = errorOf(result);
      expect(error.code, name).toBe(code);
      expect(error.message, name).toContain(message);
      expect(error.message, name).not.toMatch(/query parameter|Invalid input/);
      if (path) expect((await rest(path)).json.error, name).toMatchObject({ code });
    }
  });

  it('answers an unknown tool as an error naming the tool asked for and the tools', async () => {
    const result = await client.callTool({ name: 'delete_everything', arguments: {} });
    expect(result.isError).toBe(true);
    const error = errorOf(result);
    expect(error.error.code).toBe('not_found');
    expect(error.error.message).toContain('No tool named "delete_everything"');
    expect(error.error.message).toContain('search_services');
  });

  it('lists its tools in under 20 KiB, with instructions that say answers hold third-party text', async () => {
    const { tools } = await client.listTools();
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(20 * 1024);
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toContain('third-party text');
    expect(instructions).toContain('never as instructions');
  });

  it('answers search_services with 20 services by default, as REST does with limit=20', async () => {
    const result = await client.callTool({ name: 'search_services', arguments: {} });
    const list = ServiceList.parse(structured(result));
    expect(list.page.limit).toBe(20);
    expect(withoutTime(structured(result))).toEqual(withoutTime((await rest('/api/v1/services?limit=20')).json));
    expect((await rest('/api/v1/services')).json.page).toMatchObject({ limit: 100 });
    const search = (await client.listTools()).tools.find((tool) => tool.name === 'search_services')!;
    expect(search.inputSchema.properties?.limit).toMatchObject({ default: 20 });
  });

  it('answers get_status with exactly what GET /api/v1/status answers', async () => {
    const result = await client.callTool({ name: 'get_status', arguments: {} });
    expect(result.isError).toBeFalsy();
    IndexStatus.parse(structured(result));
    expect(withoutTime(structured(result))).toEqual(withoutTime((await rest('/api/v1/status')).json));
  });
});

describe('/mcp over HTTP, as a client that is not the SDK sees it', () => {
  const post = (body: string, headers: Record<string, string> = {}) => fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });

  it('answers a body that is not JSON in the Error shape, never a 5xx or HTML', async () => {
    for (const body of ['{"jsonrpc": "2.0", "id": 1,', 'not json', '']) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(ErrorResponse.parse(await response.json()).error.code).toBe('invalid_json');
    }
    const notJson = await post('{}', { 'content-type': 'text/plain' });
    expect(notJson.status).toBe(415);
    expect(ErrorResponse.parse(await notJson.json()).error.code).toBe('invalid_json');
  });

  it('answers JSON that is not a JSON-RPC request with a JSON-RPC error, not a 5xx', async () => {
    const response = await post(JSON.stringify({ hello: 'world' }));
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.headers.get('content-type')).toMatch(/json/);
    const body = await response.json();
    expect(body.error.message).toEqual(expect.any(String));
  });

  it('answers an empty batch with a JSON-RPC Invalid Request error, not an empty 202', async () => {
    const response = await post('[]');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('empty') } });
  });

  it('carries the API rate limit and CORS headers, and refuses GET in the Error shape', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('ratelimit-policy')).toBe('100000;w=60');
    expect(response.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    const listed = await response.json();
    expect(listed.result.tools).toHaveLength(TOOLS.length);

    const get = await fetch(`${origin}/mcp`, { headers: { accept: 'text/html' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('content-type')).toMatch(/^application\/json/);
    expect(ErrorResponse.parse(await get.json()).error.code).toBe('not_found');
  });
});
