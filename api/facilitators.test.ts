import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFacilitators } from '../crawler/facilitators.ts';
import { createProbeAgent, type ProbeAgent } from '../crawler/probe.ts';
import { parseAllowList } from '../net/guard.ts';
import { upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { FacilitatorList } from '../domain/facilitators.ts';
import { createApp, serveApp } from './app.ts';
import { testConfig, TEST_NOW } from './testing.ts';

/*
 * The facilitator directory: local facilitators answering GET /supported (one on a loopback address the SSRF guard
 * refuses), checked by the crawler's pass at most hourly, then read over a real socket from GET /api/v1/facilitators.
 */

const SUPPORTED = {
  kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }, { x402Version: 1, scheme: 'exact', network: 'base-sepolia' }, { scheme: 'broken' }],
  extensions: ['bazaar'],
  signers: { 'eip155:*': ['0x1111111111111111111111111111111111111111'] },
};

async function startFacilitator(host: string) {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/facilitator/supported') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SUPPORTED));
    else res.writeHead(404).end();
  });
  server.on('connection', () => hits.push('connection'));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}/facilitator`, hits, close: () => new Promise((resolve) => server.close(resolve)) };
}

let local: Awaited<ReturnType<typeof startFacilitator>>;
let forbidden: Awaited<ReturnType<typeof startFacilitator>>;
let agent: ProbeAgent;
let origin = '';
let server: ReturnType<typeof serveApp>;
const db = openTestDatabase();
const MINUTE = 60_000;
const at = (minutes: number) => () => new Date(TEST_NOW.getTime() + minutes * MINUTE);

beforeAll(async () => {
  local = await startFacilitator('127.0.0.1');
  forbidden = await startFacilitator('127.0.0.2');
  upsertServices(db, [
    makeService({ id: 'a-test', facilitator: `${local.url}/` }),
    makeService({ id: 'b-test', facilitator: local.url }),
    makeService({ id: 'c-test', facilitator: forbidden.url }),
    makeService({ id: 'd-test' }),
  ], TEST_NOW.toISOString());
  agent = createProbeAgent({ allow: parseAllowList('127.0.0.1') });
  server = serveApp(createApp({ db, config: testConfig(), now: () => TEST_NOW }), { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
});
afterAll(async () => {
  await server.close(true);
  await agent.dispatcher.close();
  await Promise.all([local.close(), forbidden.close()]);
});

const read = async () => FacilitatorList.parse(await (await fetch(`${origin}/api/v1/facilitators`)).json());

describe('the facilitator directory', () => {
  it('lists no facilitator before any was seen', async () => {
    expect((await read()).facilitators).toEqual([]);
  });

  it('checks every facilitator seen at GET {url}/supported, through the SSRF guard, and lists each with its kinds and services', async () => {
    const closed = 'http://127.0.0.1:9/facilitator';
    const summary = await checkFacilitators(db, { agent, configured: [local.url, closed], now: at(0) });
    expect(summary).toEqual({ checked: 3, live: 1 });
    expect(local.hits).toEqual(['connection', 'GET /facilitator/supported']);
    expect(forbidden.hits).toEqual([]);
    const { facilitators } = await read();
    expect(facilitators).toEqual([
      {
        url: local.url, live: true, last_check: { at: TEST_NOW.toISOString(), ok: true, error: null },
        kinds: SUPPORTED.kinds.slice(0, 2), extensions: ['bazaar'], services: 2, seen_in: ['configuration', 'directory'],
      },
      { url: forbidden.url, live: false, last_check: { at: TEST_NOW.toISOString(), ok: false, error: 'refused: private address' }, kinds: [], extensions: [], services: 1, seen_in: ['directory'] },
      { url: closed, live: false, last_check: { at: TEST_NOW.toISOString(), ok: false, error: expect.stringContaining('ECONNREFUSED') }, kinds: [], extensions: [], services: 0, seen_in: ['configuration'] },
    ]);
  });

  it('asks each facilitator at most once an hour', async () => {
    expect(await checkFacilitators(db, { agent, configured: [local.url], now: at(30) })).toEqual({ checked: 0, live: 0 });
    expect(local.hits.filter((hit) => hit.startsWith('GET'))).toHaveLength(1);
    expect(await checkFacilitators(db, { agent, configured: [local.url], now: at(61) })).toMatchObject({ checked: 3, live: 1 });
    expect(local.hits.filter((hit) => hit.startsWith('GET'))).toHaveLength(2);
    expect(forbidden.hits).toEqual([]);
  });
});
