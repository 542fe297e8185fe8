import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDirectoryConfig } from '../crawler/directories.ts';
import { toServiceId } from '../domain/service-id.ts';
import { createProbeAgent } from '../crawler/probe.ts';
import { runCrawl } from '../crawler/run.ts';
import { parseAllowList } from '../net/guard.ts';
import { FLAGS, ServiceDetail, ServiceList } from '../domain/schemas.ts';
import { TRUST_BEHAVIOURS, type Behaviour } from '../scripts/fleet/behaviours.ts';
import { startFleet, type Fleet } from '../scripts/fleet.ts';
import { serveApp } from './app.ts';
import { createTestApp, TEST_NOW } from './testing.ts';

/*
 * Flags, reasons and endpoint checks as an agent reads them over a real socket, after a real crawl of the fleet: the
 * `flag=` and `flags=none` filters and their counts, Service `reason` and ServiceDetail `endpoints`.
 */

const CLEAN: Behaviour[] = ['x402-v2-header', 'mpp', 'not-found'];
let fleet: Fleet;
let origin = '';
let close = async () => {};

beforeAll(async () => {
  fleet = await startFleet({ count: TRUST_BEHAVIOURS.length + CLEAN.length, behaviours: [...TRUST_BEHAVIOURS, ...CLEAN], latency: 'none', probeTimeoutMs: 2000 });
  const test = createTestApp([]);
  const agent = createProbeAgent({ allow: parseAllowList('127.0.0.1') });
  await runCrawl(test.db, {
    agent, discover: true, probe: true, timeoutMs: 2000, checkBudget: 100, now: () => TEST_NOW,
    directories: [toDirectoryConfig(`bazaar=${fleet.directories.bazaar}`), toDirectoryConfig(`mpp=${fleet.directories.mpp}`)],
  });
  await agent.dispatcher.close();
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  close = () => server.close(true);
});
afterAll(async () => {
  await close();
  await fleet.close();
});

async function list(query: string): Promise<ServiceList> {
  const response = await fetch(`${origin}/api/v1/services?${query}`);
  expect(response.status).toBe(200);
  return ServiceList.parse(await response.json());
}

const idsOf = (behaviours: Behaviour[]) =>
  fleet.endpoints.filter((e) => behaviours.includes(e.behaviour)).map((e) => toServiceId(e.url)).sort();

describe('flags over HTTP', () => {
  it('flag= lists exactly the services with that flag, counted', async () => {
    const expected: Record<string, Behaviour[]> = {
      wildcard_402: ['wildcard-402'], template_url: ['template-only', 'template-example'], extreme_price: ['extreme-price'],
      price_mismatch: ['price-mismatch'], testnet_only: ['testnet-only'], challenge_nonstandard: ['nonstandard'], unreachable_30d: [],
    };
    for (const flag of FLAGS) {
      const body = await list(`flag=${flag}&limit=500`);
      expect(body.services.map((s) => s.id).sort(), flag).toEqual(idsOf(expected[flag]!));
      expect(body.counts.total, flag).toBe(expected[flag]!.length);
      for (const service of body.services) expect(service.flags).toContain(flag);
    }
  });

  it('flags=none lists the services without any flag, live or not', async () => {
    const body = await list('flags=none&limit=500');
    expect(body.services.map((s) => s.id).sort()).toEqual(idsOf([...CLEAN, 'unreachable', 'retired-endpoint']));
    expect(body.counts).toMatchObject({ total: 5, live: 3 });
  });

  it('answers why the last probe found no challenge, and every listed endpoint with its last check', async () => {
    const all = await list('limit=500');
    const reasonOf = (behaviour: Behaviour) => all.services.find((s) => s.id === idsOf([behaviour])[0])?.reason;
    expect(reasonOf('not-found')).toBe('answered 404');
    expect(reasonOf('unreachable')).toBe('connection reset');
    expect(reasonOf('x402-v2-header')).toBeNull();

    const response = await fetch(`${origin}/api/v1/services/${idsOf(['retired-endpoint'])[0]}`);
    const detail = ServiceDetail.parse(await response.json());
    expect(detail.endpoints).toHaveLength(5);
    expect(detail.endpoints[0]).toMatchObject({ method: 'GET', url: detail.endpoint, sources: ['bazaar'], last_check: { ok: true, status_code: 402, reason: null } });
    expect(detail.endpoints.at(-1)?.last_check).toMatchObject({ ok: false, status_code: 404, reason: 'answered 404' });
    expect(detail.endpoints[1]?.price.usd).toBe(detail.price.usd);
  });

  it('describes the new fields in the OpenAPI document', async () => {
    const document = await (await fetch(`${origin}/openapi.json`)).json();
    expect(Object.keys(document.components.schemas.Service.properties)).toContain('reason');
    expect(Object.keys(document.components.schemas.ServiceDetail.properties)).toContain('endpoints');
    expect(document.components.schemas.EndpointCheck.required).toEqual(['at', 'ok', 'status_code', 'latency_ms', 'reason']);
  });
});
