import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServiceDetail } from '../data/service-detail.ts';
import { getService } from '../data/service-read.ts';
import { openTestDatabase } from '../data/testing.ts';
import { ServiceDetail } from '../domain/schemas.ts';
import { TRUST_BEHAVIOURS, type Behaviour } from '../scripts/fleet/behaviours.ts';
import { startFleet, type Fleet, type FleetRequest } from '../scripts/fleet.ts';
import { toDirectoryConfig } from './directories.ts';
import { toServiceId } from '../domain/service-id.ts';
import { createProbeAgent, type ProbeAgent } from './probe.ts';
import { NOT_PROBED_TEMPLATE } from './probe-pass.ts';
import { runCrawl } from './run.ts';
import { parseAllowList } from '../net/guard.ts';

/*
 * Flags and endpoint checks against the fleet's real servers: a host per flag and per endpoint behaviour beside clean
 * hosts, and the fleet's own request log for what reached each host.
 */

const TIMEOUT_MS = 2000;
/** Hosts a bare challenge hides nothing of: none may ever carry a flag. */
const CLEAN: Behaviour[] = ['x402-v2-header', 'x402-v1-body', 'mpp', 'dual-rail', 'post-only', 'html-paywall', 'not-found'];
const DAY_MS = 86_400_000;
const at = (days: number, minutes = 0) => new Date(Date.parse('2026-11-01T00:00:00.000Z') + days * DAY_MS + minutes * 60_000);

let agent: ProbeAgent;
beforeAll(() => {
  agent = createProbeAgent({ allow: parseAllowList('127.0.0.1') });
});
afterAll(() => agent.dispatcher.close());

/** A budget every check of these small fleets fits in, but where a test sets its own. */
const crawl = (db: ReturnType<typeof openTestDatabase>, fleet: Fleet, now: Date, overrides = {}) =>
  runCrawl(db, {
    checkBudget: 100,
    agent,
    directories: [toDirectoryConfig(`bazaar=${fleet.directories.bazaar}`), toDirectoryConfig(`mpp=${fleet.directories.mpp}`)],
    discover: true,
    probe: true,
    timeoutMs: TIMEOUT_MS,
    now: () => now,
    ...overrides,
  });

/** Requests to one host that overlapped in time, as the host saw them. */
function findOverlaps(requests: FleetRequest[]): Array<[FleetRequest, FleetRequest]> {
  const byHost = new Map<string, FleetRequest[]>();
  for (const request of requests) byHost.set(request.host, [...(byHost.get(request.host) ?? []), request]);
  return [...byHost.values()].flatMap((list) => {
    const sorted = [...list].sort((a, b) => a.startedMs - b.startedMs);
    return sorted.slice(1).flatMap((request, i) => (request.startedMs < sorted[i]!.endedMs ? [[sorted[i]!, request] as [FleetRequest, FleetRequest]] : []));
  });
}

const pathOf = (request: FleetRequest) => request.path.replace(/^\/svc\/\d+/, '');

describe('flags', () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet({ count: TRUST_BEHAVIOURS.length + CLEAN.length, behaviours: [...TRUST_BEHAVIOURS, ...CLEAN], latency: 'none', probeTimeoutMs: TIMEOUT_MS, logRequests: true });
  });
  afterAll(() => fleet.close());

  it('sets each flag exactly on the host that shows it, never on a clean host, and never changes live', async () => {
    const db = openTestDatabase();
    const summary = await crawl(db, fleet, at(0));
    expect(summary.errors).toEqual([]);
    for (const endpoint of fleet.endpoints) {
      const service = getService(db, toServiceId(endpoint.url));
      const label = `${endpoint.behaviour} ${endpoint.url}`;
      expect(service?.flags, label).toEqual(endpoint.expected.flags);
      expect(service?.live ?? false, label).toBe(endpoint.expected.ok);
      expect(service?.reason ?? null, label).toBe(endpoint.expected.reason);
      if (CLEAN.includes(endpoint.behaviour)) expect(service?.flags, label).toEqual([]);
    }
    expect(findOverlaps(fleet.requests)).toEqual([]);
  });

  it('never requests a URL template as written: fills it from the listing example, or records it as not probed', async () => {
    const template = fleet.endpoints.find((e) => e.behaviour === 'template-only')!;
    const filled = fleet.endpoints.find((e) => e.behaviour === 'template-example')!;
    const hostOf = (url: string) => new URL(url).host;
    expect(fleet.requests.filter((r) => r.host === hostOf(template.url))).toEqual([]);
    expect(fleet.requests.filter((r) => r.host === hostOf(filled.url)).map(pathOf)).toContain('/items/7');
    expect(fleet.requests.some((r) => /%7B|\{/i.test(r.path))).toBe(false);
    const db = openTestDatabase();
    await crawl(db, fleet, at(0));
    expect(getService(db, toServiceId(template.url))).toMatchObject({ live: null, reason: NOT_PROBED_TEMPLATE, flags: ['template_url'] });
  });

  it('checks a random sibling path at most once a day per host: the same 402 there flags it, a 404 does not', async () => {
    const db = openTestDatabase();
    fleet.requests.length = 0;
    for (const minutes of [0, 5, 10]) await crawl(db, fleet, at(0, minutes));
    const siblings = () => fleet.requests.filter((r) => /\/psi-[0-9a-f]+$/.test(r.path));
    const once = siblings();
    // Every host whose main endpoint answered 402 (the wildcard host, the flagged ones, x402, MPP, the paywall), once.
    const hosts = once.map((r) => r.host);
    expect(new Set(hosts).size).toBe(hosts.length);
    expect(hosts.length).toBeGreaterThanOrEqual(10);
    const wildcard = fleet.endpoints.find((e) => e.behaviour === 'wildcard-402')!;
    const clean = fleet.endpoints.find((e) => e.behaviour === 'x402-v2-header')!;
    expect(hosts).toEqual(expect.arrayContaining([new URL(wildcard.url).host, new URL(clean.url).host]));
    expect(getService(db, toServiceId(wildcard.url))?.flags).toEqual(['wildcard_402']);
    expect(getService(db, toServiceId(clean.url))?.flags).toEqual([]);
    await crawl(db, fleet, at(1, 1));
    expect(siblings().length).toBe(once.length * 2);
  });

  it('flags a host without any HTTP answer for 30 days, and only then', async () => {
    const db = openTestDatabase();
    const unreachable = toServiceId(fleet.endpoints.find((e) => e.behaviour === 'unreachable')!.url);
    for (const days of [0, 15, 29]) {
      await crawl(db, fleet, at(days));
      expect(getService(db, unreachable)).toMatchObject({ live: false, flags: [] });
    }
    await crawl(db, fleet, at(30));
    expect(getService(db, unreachable)).toMatchObject({ live: false, flags: ['unreachable_30d'], reason: 'connection reset' });
  });
});

describe('every listed endpoint', () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet({ count: 6, behaviours: ['retired-endpoint'], latency: 'none', probeTimeoutMs: TIMEOUT_MS, logRequests: true });
  });
  afterAll(() => fleet.close());

  it('checks each at most once a day, spread over passes within their budget, one request at a time per host', async () => {
    const db = openTestDatabase();
    const BUDGET = 5;
    // Checks: distinct URLs asked beyond the main endpoints (a 404 to a GET is asked no other way).
    const extra = (from: number) => new Set(fleet.requests.slice(from).filter((r) => pathOf(r) !== '/quote').map((r) => `${r.host}${r.path}`));
    // Six hosts, four endpoints each beside the main one: 24 checks and 6 wildcard checks, 5 a pass.
    let passes = 0;
    for (; passes < 12; passes++) {
      const seen = fleet.requests.length;
      await crawl(db, fleet, at(0, passes * 5), { checkBudget: BUDGET });
      expect(extra(seen).size).toBeLessThanOrEqual(BUDGET);
      // The main endpoint keeps its probe every pass.
      expect(fleet.requests.slice(seen).filter((r) => pathOf(r) === '/quote').length).toBe(6);
    }
    const checks = fleet.requests.filter((r) => /\/e\/\d$/.test(r.path));
    expect(checks.length).toBe(24);
    expect(new Set(checks.map((r) => `${r.host}${r.path}`)).size).toBe(24);
    expect(findOverlaps(fleet.requests)).toEqual([]);

    for (const endpoint of fleet.endpoints) {
      const detail = ServiceDetail.parse(JSON.parse(readServiceDetail(db, toServiceId(endpoint.url))!.body));
      expect(detail.endpoints.map((e) => new URL(e.url).pathname.replace(/^\/svc\/\d+/, ''))).toEqual(['/quote', '/e/1', '/e/2', '/e/3', '/e/4']);
      expect(detail.endpoints.map((e) => e.last_check?.status_code)).toEqual([402, 402, 402, 402, 404]);
      expect(detail.endpoints[4]!.last_check).toMatchObject({ ok: false, reason: 'answered 404' });
      expect(detail.endpoints[1]!.sources).toEqual(['bazaar']);
    }

    // A day later they are due again.
    const seen = fleet.requests.length;
    await crawl(db, fleet, at(1, 60), { checkBudget: 100 });
    expect(fleet.requests.slice(seen).filter((r) => /\/e\/\d$/.test(r.path)).length).toBe(24);
    expect(findOverlaps(fleet.requests)).toEqual([]);
  });
});
