import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertServices } from '../../data/services.ts';
import { makeService, openTestDatabase } from '../../data/testing.ts';
import { ErrorResponse, SubmitResult } from '../../domain/schemas.ts';
import { createApp, serveApp } from '../app.ts';
import { SUBMIT_LOOKUPS_PER_CLIENT } from '../lookup-limits.ts';
import { postJson, testConfig, TEST_NOW } from '../testing.ts';

/*
 * MCP under the API's limits, on a real socket behind a trusted proxy (each test's client named by X-Forwarded-For):
 * every JSON-RPC message of a batch spends a token of its client's bucket, and a tool call counts against the
 * per-client limits of its client exactly as the REST route does. Submitted hosts under `hang.test` are looked up by
 * a resolver that answers only when the test releases it.
 */

const LIMIT = 100;
const db = openTestDatabase();
const lookedUp: string[] = [];
const held: Array<() => void> = [];
let origin = '';
const servers: Array<ReturnType<typeof serveApp>> = [];

beforeAll(async () => {
  upsertServices(db, [makeService({ id: 'alpha-test' })], TEST_NOW.toISOString());
  const lookup = (host: string) => {
    lookedUp.push(host);
    if (!host.endsWith('hang.test')) return Promise.resolve(['93.184.215.14']);
    return new Promise<string[]>((resolve) => held.push(() => resolve(['93.184.215.14'])));
  };
  const config = testConfig({ trustProxy: true, rateLimit: { limit: LIMIT, windowSeconds: 3600 } });
  const server = serveApp(createApp({ db, config, now: () => new Date(), lookup }), { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  servers.push(server);
  origin = new URL(server.url!).origin;
});

afterAll(async () => {
  for (const release of held) release();
  await Promise.all(servers.map((server) => server.close(true)));
  db.close();
});

const post = (client: string, body: unknown) => fetch(`${origin}/mcp`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': client },
  body: JSON.stringify(body),
});

const callTool = (id: number, name: string, args: Record<string, unknown>) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

const countSubmissions = () => (db.prepare('SELECT count(*) AS n FROM submissions').get() as { n: number }).n;

describe('a JSON-RPC batch spends one token per message', () => {
  it('answers a batch of 100 tools/call, after which the client\'s bucket is spent', async () => {
    const client = '198.51.100.40';
    const batch = await post(client, Array.from({ length: 100 }, (_, i) => callTool(i + 1, 'get_stats', {})));
    expect(batch.status).toBe(200);
    expect(batch.headers.get('ratelimit-remaining')).toBe('0');
    const answers = await batch.json() as Array<{ id: number; result: { isError?: boolean } }>;
    expect(answers).toHaveLength(100);
    expect(answers.every((answer) => !answer.result.isError)).toBe(true);

    const next = await post(client, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(next.status).toBe(429);
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(ErrorResponse.parse(await next.json()).error.code).toBe('rate_limited');
    expect((await post('198.51.100.41', { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200);
  });

  it('refuses a batch the bucket cannot cover with 429 and Retry-After, running none of its calls', async () => {
    const client = '198.51.100.42';
    const submits = (from: number) => Array.from({ length: 60 }, (_, i) =>
      callTool(i + 1, 'submit_service', { endpoint: `https://s${from + i}.batch.example.com/pay` }));
    const before = countSubmissions();
    const first = await post(client, submits(0));
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 60));
    expect(countSubmissions()).toBe(before + 60);

    const second = await post(client, submits(60));
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.headers.get('ratelimit-remaining')).toBe('0');
    expect(ErrorResponse.parse(await second.json()).error.code).toBe('rate_limited');
    expect(countSubmissions()).toBe(before + 60);
  });

  it('refuses a batch over the whole limit as too large, since waiting would never let it through', async () => {
    const client = '198.51.100.43';
    const batch = await post(client, Array.from({ length: LIMIT + 1 }, (_, i) => callTool(i + 1, 'get_stats', {})));
    expect(batch.status).toBe(413);
    expect(batch.headers.get('retry-after')).toBeNull();
    const { error } = ErrorResponse.parse(await batch.json());
    expect(error).toMatchObject({ code: 'invalid_json' });
    expect(error.message).toContain(`Send at most ${LIMIT} in a batch`);
    const next = await post(client, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 2));
  });
});

describe('a tool call counts against its client\'s limits as the REST route does', () => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = new Client({ name: 'psi-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { 'x-forwarded-for': '198.51.100.50' } } });
    await mcp.connect(transport);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('submit_service lookups over MCP fill the client\'s lookup slots, so its REST submit is queued without one', async () => {
    const calls = Array.from({ length: SUBMIT_LOOKUPS_PER_CLIENT }, (_, i) =>
      mcp.callTool({ name: 'submit_service', arguments: { endpoint: `https://m${i}.hang.test/pay` } }));
    await expect.poll(() => held.length).toBe(SUBMIT_LOOKUPS_PER_CLIENT);

    const sameClient = await fetch(`${origin}/api/v1/submit`, postJson({ endpoint: 'https://rest.hang.test/pay' }, { 'x-forwarded-for': '198.51.100.50' }));
    expect(SubmitResult.parse(await sameClient.json()).status).toBe('queued');
    expect(lookedUp).not.toContain('rest.hang.test');

    const otherClient = fetch(`${origin}/api/v1/submit`, postJson({ endpoint: 'https://other.hang.test/pay' }, { 'x-forwarded-for': '198.51.100.51' }));
    await expect.poll(() => lookedUp).toContain('other.hang.test');
    for (const release of held.splice(0)) release();
    expect((await otherClient).status).toBe(200);
    for (const result of await Promise.all(calls)) expect(SubmitResult.parse(result.structuredContent).status).toBe('queued');
  });
});
