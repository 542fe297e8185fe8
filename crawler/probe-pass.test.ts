import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delistService } from '../data/owners.ts';
import { recordProbe } from '../data/probes.ts';
import { upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { createProbeAgent, type ProbeAgent } from './probe.ts';
import { MAX_PROBE_CONCURRENCY, MIN_PROBE_CONCURRENCY, probePass, toPassConcurrency } from './probe-pass.ts';
import { parseAllowList } from '../net/guard.ts';

// Four hosts (one port each) answering an x402 v1 challenge, each request logged in arrival order.
const arrivals: string[] = [];
const servers: Server[] = [];
let agent: ProbeAgent;

beforeAll(async () => {
  for (let i = 0; i < 4; i++) {
    const server = createServer((request, response) => {
      arrivals.push(`${request.headers.host}${request.url}`);
      response.writeHead(402, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ x402Version: 1, accepts: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  agent = createProbeAgent({ allow: parseAllowList('127.0.0.1') });
});
afterAll(async () => {
  await agent.dispatcher.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

const origin = (server: Server) => `127.0.0.1:${(server.address() as AddressInfo).port}`;

describe('probe pass order', () => {
  it('starts the hosts expected to take a second or more first, longest first, then the rest in the order listed', async () => {
    const db = openTestDatabase();
    const [fast, slow, unknown, middling] = servers.map(origin) as [string, string, string, string];
    const services = [
      makeService({ id: 'a-fast-test', endpoint: `http://${fast}/a` }),
      makeService({ id: 'b-slow-test', endpoint: `http://${slow}/b` }),
      makeService({ id: 'c-unknown-test', endpoint: `http://${unknown}/c` }),
      makeService({ id: 'd-middling-test', endpoint: `http://${middling}/d` }),
      // A second service on the fast host: probed right after the first, one request at a time per host.
      makeService({ id: 'e-fast-test', endpoint: `http://${fast}/e` }),
    ];
    upsertServices(db, services, '2026-11-01T00:00:00.000Z');
    const lastTook = { 'a-fast-test': 5, 'b-slow-test': 9_000, 'd-middling-test': 300, 'e-fast-test': 30 };
    for (const [id, ms] of Object.entries(lastTook)) {
      recordProbe(db, { service_id: id, probed_at: '2026-11-01T00:00:00.000Z', ok: true, status_code: 402, method: 'GET', latency_ms: ms, reason: null, detected_rails: ['x402'] });
    }
    arrivals.length = 0;
    // No checks beyond the main probes: this is about their order (crawler/checks.test.ts has the checks).
    const summary = await probePass(db, { agent, concurrency: 1, timeoutMs: 10_000, checkBudget: 0, now: () => new Date('2026-11-02T00:00:00.000Z') });
    expect(summary).toMatchObject({ probed: 5, concurrency: 1 });
    // Recorded in batches, all of them by the time the pass returns: the 4 earlier probes and these 5.
    expect(db.prepare('SELECT count(*) AS n FROM probes').get()).toEqual({ n: 9 });
    // Never probed counts as the time limit (10 s), so c leads b (9 s); the fast and middling hosts keep their
    // listed order (sorted, the middling d would go before the fast host's 5 + 30 ms).
    expect(arrivals).toEqual([`${unknown}/c`, `${slow}/b`, `${fast}/a`, `${fast}/e`, `${middling}/d`]);
  });

  it('reads its targets a page at a time: every host of a pass larger than a page probed once, one delisted mid-pass skipped', async () => {
    // One server on every loopback address: 127.0.0.1-150 on two ports are 300 hosts, past one page of 256.
    const wide = createServer((request, response) => {
      arrivals.push(`${request.headers.host}${request.url}`);
      response.writeHead(402, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ x402Version: 1, accepts: [] }));
    });
    const second = createServer(wide.listeners('request')[0] as never);
    const ports: number[] = [];
    for (const server of [wide, second]) {
      await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
      ports.push((server.address() as AddressInfo).port);
    }
    const wideAgent = createProbeAgent({ allow: parseAllowList('127.0.0.0/8') });
    try {
      const db = openTestDatabase();
      const services = ports.flatMap((port, p) => Array.from({ length: 150 }, (_, n) =>
        makeService({ id: `host-${p}-${String(n).padStart(3, '0')}-test`, endpoint: `http://127.0.0.${n + 1}:${port}/quote` })));
      upsertServices(db, services, '2026-11-01T00:00:00.000Z');
      arrivals.length = 0;
      // Listed last, so it is read in the second page, after the pass has started.
      const delisted = 'host-1-149-test';
      const summary = await probePass(db, {
        agent: wideAgent, concurrency: 8, timeoutMs: 5_000, checkBudget: 0, now: () => new Date(),
        onProbe: (done) => {
          if (done === 1) delistService(db, delisted, { reason: null, by: 'operator', now: new Date().toISOString() });
        },
      });
      expect(summary.probed).toBe(299);
      expect(new Set(arrivals).size).toBe(299);
      expect(arrivals).not.toContain(`127.0.0.150:${ports[1]}/quote`);
      expect(db.prepare('SELECT count(DISTINCT service_id) AS n FROM probes').get()).toEqual({ n: 299 });
    } finally {
      await wideAgent.dispatcher.close();
      await Promise.all([wide, second].map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it('takes on as many probes in flight as it needs to end within 100 s by its services\' last durations, within 64-128', async () => {
    expect(toPassConcurrency(0)).toBe(MIN_PROBE_CONCURRENCY);
    // 10,000 services at 230 ms: 2,300 s of requests, 23 in flight would do; never fewer than 64.
    expect(toPassConcurrency(10_000 * 230)).toBe(64);
    expect(toPassConcurrency(100 * 100_000)).toBe(100);
    // 100,000 services at 220 ms would want 220; never more than 128.
    expect(toPassConcurrency(100_000 * 220)).toBe(MAX_PROBE_CONCURRENCY);
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-fast-test', endpoint: `http://${origin(servers[0]!)}/a` })], '2026-11-01T00:00:00.000Z');
    const summary = await probePass(db, { agent, timeoutMs: 10_000, checkBudget: 0, now: () => new Date() });
    expect(summary).toMatchObject({ probed: 1, concurrency: 64 });
  });
});
