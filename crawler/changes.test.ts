import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listChanges } from '../data/changes.ts';
import { upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { Change } from '../domain/schemas.ts';
import type { Behaviour } from '../scripts/fleet/behaviours.ts';
import { MAIN_PATH, serveService, type FleetService, type ServeContext } from '../scripts/fleet/serve.ts';
import { createProbeAgent, type ProbeAgent } from './probe.ts';
import { runCrawl } from './run.ts';
import { parseAllowList } from '../net/guard.ts';

/*
 * The change log as the crawler writes it, against fleet services (scripts/fleet/) on loopback whose behaviour this
 * test switches between crawls: going live, dark, a new price, a new rail; and a crawl that changes nothing writes
 * nothing.
 */

const ctx: ServeContext = { realm: '127.0.0.1', slowMs: 30_000, hits: new Map() };
const fleet: FleetService[] = [];
const servers: Server[] = [];
let agent: ProbeAgent;
let clock = Date.parse('2026-11-25T12:00:00.000Z');

beforeAll(async () => {
  for (let n = 0; n < 3; n++) {
    const service: FleetService = { n, behaviour: 'free-200', origin: '', basePath: `/svc/${n}`, listedPaths: [MAIN_PATH], offer: { url: '', amount: '10000', description: `Quotes ${n}` }, latencyMs: 0 };
    const server = createServer((req, res) => serveService(service, (req.url ?? '').slice(service.basePath.length), req, res, ctx));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    service.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service.offer.url = `${service.origin}${service.basePath}${MAIN_PATH}`;
    fleet.push(service);
    servers.push(server);
  }
  agent = createProbeAgent({ allow: parseAllowList('127.0.0.1') });
});
afterAll(async () => {
  await agent.dispatcher.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

const db = openTestDatabase();
let seen = 0;

/** One probe crawl; answers the changes it wrote, as `service type`. */
async function crawl(): Promise<string[]> {
  clock += 300_000;
  await runCrawl(db, { agent, directories: [], discover: false, probe: true, timeoutMs: 3_000, now: () => new Date(clock) });
  const { changes } = listChanges(db, { after: seen > 0 ? String(seen).padStart(12, '0') : null, limit: 500 });
  for (const change of changes) expect(Change.parse(change)).toEqual(change);
  seen += changes.length;
  return changes.map((change) => `${change.service_id} ${change.type}`);
}

function behave(n: number, behaviour: Behaviour, amount = fleet[n]!.offer.amount): void {
  fleet[n]!.behaviour = behaviour;
  fleet[n]!.offer.amount = amount;
}

describe('changes written by the crawler', () => {
  it('follows the fleet from crawl to crawl', async () => {
    const ids = fleet.map((service) => `fleet-${service.n}-test`);
    upsertServices(db, fleet.map((service, i) => makeService({
      id: ids[i]!, endpoint: service.offer.url, price: { usd: 0.01, display: '$0.01' }, rails: ['x402'], chains: ['base'],
    })), new Date(clock).toISOString());
    expect(await crawl()).toEqual(ids.map((id) => `${id} listed`));
    // Not live from never checked is no change.
    expect(await crawl()).toEqual([]);

    behave(0, 'x402-v2-header');
    behave(1, 'x402-v2-header', '20000');
    expect((await crawl()).sort()).toEqual([`${ids[0]} went_live`, `${ids[1]} went_live`, `${ids[1]} price_changed`].sort());
    const price = listChanges(db, { service: ids[1], types: ['price_changed'], limit: 10 }).changes[0]!;
    expect(price).toMatchObject({ before: { price: { usd: 0.01 } }, after: { price: { usd: 0.02 } } });
    expect(price.summary).toMatch(/changed its price from \$0\.01 to \$0\.02/);

    // The same answers again: a crawl that changes nothing writes nothing.
    expect(await crawl()).toEqual([]);

    behave(0, 'server-error');
    behave(1, 'dual-rail');
    expect((await crawl()).sort()).toEqual([`${ids[0]} went_dark`, `${ids[1]} terms_changed`].sort());
    const terms = listChanges(db, { service: ids[1], types: ['terms_changed'], limit: 10 }).changes[0]!;
    expect(terms.before).toMatchObject({ rails: ['x402'] });
    expect(terms.after).toMatchObject({ rails: ['mpp', 'x402'] });

    behave(0, 'x402-v2-header');
    expect(await crawl()).toEqual([`${ids[0]} went_live`]);
    expect(await crawl()).toEqual([]);
  }, 60_000);

  it('prunes changes past 90 days in the crawl', async () => {
    const before = listChanges(db, { limit: 500 }).changes.length;
    expect(before).toBeGreaterThan(0);
    clock += 91 * 86_400_000;
    await runCrawl(db, { agent, directories: [], discover: false, probe: true, timeoutMs: 3_000, now: () => new Date(clock) });
    expect(listChanges(db, { limit: 500 }).changes.every((change) => Date.parse(change.at) > clock - 90 * 86_400_000)).toBe(true);
    expect(listChanges(db, { limit: 500 }).changes.length).toBeLessThan(before);
  }, 30_000);
});
