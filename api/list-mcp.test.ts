import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeServiceFlags } from '../data/flags.ts';
import { recordProbes } from '../data/probes.ts';
import { makeService } from '../data/testing.ts';
import { ErrorResponse, ServiceList } from '../domain/schemas.ts';
import { serveApp } from './app.ts';
import { createTestApp, TEST_NOW } from './testing.ts';

/*
 * The list's honesty rules through MCP, with the official SDK client against the real app on a real socket:
 * `search_services` reads booleans as the REST list does, refuses what it cannot read, and answers the same orders.
 */

let origin = '';
let close = async () => {};
let client: Client;

beforeAll(async () => {
  const test = createTestApp([
    makeService({ id: 'a-test', name: 'Weather now', description: 'Current weather' }),
    makeService({ id: 'b-test', name: 'Research', description: 'Academic research, weather included' }),
    makeService({ id: 'c-test', name: 'Forecasts', description: 'Weather forecasts', sources: [{ source: 'bazaar', url: null }, { source: 'mpp.dev', url: null }] }),
  ]);
  recordProbes(test.db, ['b-test', 'c-test'].map((id) => ({
    service_id: id, probed_at: TEST_NOW.toISOString(), ok: true, status_code: 402, method: 'GET', latency_ms: 40, reason: null, detected_rails: ['x402' as const],
  })));
  writeServiceFlags(test.db, 'b-test', ['template_url']);
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  client = new Client({ name: 'psi-list-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
  close = async () => {
    await client.close();
    await server.close(true);
  };
});
afterAll(() => close());

async function search(args: Record<string, unknown>) {
  return client.callTool({ name: 'search_services', arguments: { limit: 100, ...args } });
}

async function rest(query: string): Promise<ServiceList> {
  return ServiceList.parse(await (await fetch(`${origin}/api/v1/services?limit=100&${query}`)).json());
}

const ids = (list: ServiceList) => list.services.map((service) => service.id);

describe('search_services', () => {
  it('answers the quality order by default and relevance with q, as the REST list does', async () => {
    const quality = ServiceList.parse((await search({})).structuredContent);
    // c and b are live, c unflagged; a was never checked.
    expect(ids(quality)).toEqual(['c-test', 'b-test', 'a-test']);
    expect(quality.page).toMatchObject({ sort: 'quality', ignored: [] });
    const relevance = ServiceList.parse((await search({ q: 'weather' })).structuredContent);
    // a says weather in its name, c as a word of its description, b too but flagged.
    expect(ids(relevance)).toEqual(['a-test', 'c-test', 'b-test']);
    expect(relevance.page.sort).toBe('relevance');
    expect(ids(relevance)).toEqual(ids(await rest('q=weather')));
  });

  it('lists the services holding all words but one after the matches, uncounted, as the REST list does', async () => {
    const partly = ServiceList.parse((await search({ q: 'current weather' })).structuredContent);
    // a holds both words; c and b weather alone, c first (live and unflagged).
    expect(ids(partly)).toEqual(['a-test', 'c-test', 'b-test']);
    expect(partly.counts.total).toBe(1);
    expect(partly).toMatchObject({ counts: (await rest('q=current%20weather')).counts });
    expect(ids(partly)).toEqual(ids(await rest('q=current%20weather')));
  });

  it('reads live from the same words as the REST list, and refuses any other value naming them', async () => {
    for (const live of [true, 'yes', 'TRUE', '1', 1]) {
      const list = ServiceList.parse((await search({ live })).structuredContent);
      expect(ids(list), String(live)).toEqual(['c-test', 'b-test']);
    }
    expect(ids(ServiceList.parse((await search({ live: 'no' })).structuredContent))).toEqual(['a-test']);
    const refused = await search({ live: 'maybe' });
    expect(refused.isError).toBe(true);
    const content = refused.content as Array<{ type: string; text: string }>;
    const { error } = ErrorResponse.parse(JSON.parse(content[0]!.text));
    expect(error.code).toBe('missing_query');
    expect(error.message).toContain('`live`');
    expect(error.message).toContain('true, false, 1, 0, yes, no');
  });
});
