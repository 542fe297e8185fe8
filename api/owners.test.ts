import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPaymentRequiredHeader } from '../scripts/fleet/challenges.ts';
import { createDnsResolver } from '../net/dns.ts';
import { parseAllowList } from '../net/guard.ts';
import { startTestDnsServer } from '../net/testing/dns-server.ts';
import { listChanges } from '../data/changes.ts';
import { openDatabase } from '../data/db.ts';
import { delistService } from '../data/owners.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { ErrorResponse, ServiceDetail, ServiceList, Stats } from '../domain/schemas.ts';
import { Claim, ClaimVerified } from './declarations/claims.ts';
import { createApp, serveApp } from './app.ts';
import { createTestApp, postJson, TEST_NOW, testConfig } from './testing.ts';

/*
 * The claim flow and the owner routes against a real owner host (an HTTP server on loopback serving the well-known
 * file and a 402 challenge) and a real DNS server (dns2) answering its TXT record.
 */

interface OwnerHost {
  origin: string;
  /** What the well-known file answers: a body, or an HTTP status. */
  file: { status: number; body: string };
  hits: string[];
}

let host: OwnerHost;
let hostServer: Server;
const txt = new Map<string, string[]>();
let dns: Awaited<ReturnType<typeof startTestDnsServer>>;

beforeAll(async () => {
  dns = await startTestDnsServer({ txt, a: new Map([[NAMED_HOST, ['127.0.0.1']]]) });
  const state = { file: { status: 404, body: '' }, hits: [] as string[] };
  hostServer = createServer((req, res) => {
    state.hits.push(`${req.method} ${req.url}`);
    if (req.url === '/.well-known/payable-service-index.txt') {
      res.writeHead(state.file.status, { 'content-type': 'text/plain' }).end(state.file.body);
      return;
    }
    const header = toPaymentRequiredHeader({ url: `http://${req.headers.host}${req.url}`, amount: '10000', description: 'Quotes' });
    res.writeHead(402, { 'payment-required': header, 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  host = Object.assign(state, { origin: `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}` });
});
afterAll(async () => {
  dns.close();
  await new Promise((resolve) => hostServer.close(resolve));
});

const serviceId = () => `127-0-0-1-${new URL(host.origin).port}`;
/** A name for the owner host that only the test DNS server knows. */
const NAMED_HOST = 'owner.claims.test';
const namedService = () => makeService({ id: `owner-claims-test-${new URL(host.origin).port}`, endpoint: `http://${NAMED_HOST}:${new URL(host.origin).port}/quote` });
const ownedService = () => makeService({
  id: serviceId(), endpoint: `${host.origin}/quote`, name: 'Directory Name',
  endpoints: [
    { url: `${host.origin}/quote`, method: 'GET', description: null, price: { usd: 0.01, display: '$0.01 / call' }, rails: ['x402'], chains: ['base'], assets: ['USDC'] },
    { url: `${host.origin}/other`, method: 'GET', description: null, price: { usd: 0.05, display: '$0.05 / call' }, rails: ['x402'], chains: ['base'], assets: ['USDC'] },
  ],
});

const servers: Array<ReturnType<typeof serveApp>> = [];
afterAll(() => Promise.all(servers.map((server) => server.close(true))));

/** The app on a real socket; `trustProxy` lets a test speak as several clients through X-Forwarded-For. */
async function setup() {
  let now = TEST_NOW;
  const extra = ['one', 'two', 'three', 'four'].map((n) => makeService({ id: `${n}-example-com` }));
  const test = createTestApp([ownedService(), namedService(), makeService({ id: 'other-example-com' }), ...extra], {
    now: () => now,
    dns: createDnsResolver({ servers: [dns.address], timeoutMs: 1000 }),
    config: { allowPrivateTargets: parseAllowList('127.0.0.1'), trustProxy: true },
  });
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  servers.push(server);
  const origin = new URL(server.url!).origin;
  const request = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${origin}${path}`, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
  };
  const from = (client: string) => ({ 'x-forwarded-for': client });
  const claim = async (client = '192.0.2.1', service = serviceId()) => {
    const made = await request('/api/v1/claims', postJson({ service_id: service }, from(client)));
    return Claim.parse(made.json);
  };
  const verify = (made: { id: string; claim_secret: string }, client = '192.0.2.1') =>
    request(`/api/v1/claims/${made.id}/verify`, { method: 'POST', headers: { authorization: `Bearer ${made.claim_secret}`, ...from(client) } });
  const asOwner = (key: string, method: string, path: string, body?: unknown): RequestInit => ({
    method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  /** A claim verified through the well-known file: answers the owner key. */
  const becomeOwner = async () => {
    const made = await claim();
    host.file = { status: 200, body: `${made.token}\n` };
    const verified = await verify(made);
    host.file = { status: 404, body: '' };
    return ClaimVerified.parse(verified.json).owner_key;
  };
  return { ...test, request, from, claim, verify, asOwner, becomeOwner, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe('claims', () => {
  it('answers a token, where to put it, and an expiry 7 days out', async () => {
    const { request, claim } = await setup();
    const made = await claim();
    expect(made).toMatchObject({
      service_id: serviceId(),
      well_known_url: `${host.origin}/.well-known/payable-service-index.txt`,
      dns_name: '_payable-service-index.127.0.0.1',
      expires_at: new Date(TEST_NOW.getTime() + 7 * 86_400_000).toISOString(),
    });
    expect(made.token.length).toBeGreaterThanOrEqual(32);
    const created = await request('/api/v1/claims', postJson({ service_id: serviceId() }));
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect((await request('/api/v1/claims', postJson({ service_id: 'no-such-service' }))).status).toBe(404);
    expect(ErrorResponse.parse((await request('/api/v1/claims', postJson({}))).json).error.code).toBe('invalid_json');
  });

  it('verifies through the well-known file, shows the key once, stores only its hash, and marks the service owner-verified', async () => {
    const { request, claim, verify, db } = await setup();
    const made = await claim();
    host.file = { status: 200, body: made.token };
    const verified = await verify(made);
    host.file = { status: 404, body: '' };
    expect(verified.status).toBe(200);
    const { owner_key, service_id } = ClaimVerified.parse(verified.json);
    expect(service_id).toBe(serviceId());
    expect(owner_key).toMatch(/^psi_[A-Za-z0-9_-]{43}$/);
    const stored = JSON.stringify(db.prepare('SELECT * FROM owner_keys').all());
    expect(stored).not.toContain(owner_key);
    expect(stored).not.toContain(owner_key.slice(4));
    const again = await verify(made);
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.json)).not.toContain('psi_');
    const detail = ServiceDetail.parse((await request(`/api/v1/services/${serviceId()}`)).json);
    expect(detail.owner_verified).toBe(true);
    expect(detail.owner).toMatchObject({ verified_at: TEST_NOW.toISOString(), edited: [] });
    const listed = ServiceList.parse((await request('/api/v1/services?limit=500')).json).services.find((s) => s.id === serviceId());
    expect(listed?.owner_verified).toBe(true);
  });

  it('verifies through the TXT record of a real DNS server', async () => {
    const { claim, verify } = await setup();
    const made = await claim();
    txt.set('_payable-service-index.127.0.0.1', ['v=unrelated', made.token]);
    try {
      const verified = await verify(made);
      expect(verified.status).toBe(200);
      expect(ClaimVerified.parse(verified.json).service_id).toBe(serviceId());
    } finally {
      txt.delete('_payable-service-index.127.0.0.1');
    }
    expect(dns.queries).toContain('_payable-service-index.127.0.0.1');
  });

  it('reads the well-known file of a host named by DNS_SERVERS, a name the system cannot resolve', async () => {
    const { claim, verify } = await setup();
    const made = await claim('192.0.2.1', namedService().id);
    host.file = { status: 200, body: made.token };
    try {
      const verified = await verify(made);
      expect(verified.status, verified.text).toBe(200);
      expect(ClaimVerified.parse(verified.json).service_id).toBe(namedService().id);
    } finally {
      host.file = { status: 404, body: '' };
    }
    expect(dns.queries).toContain(NAMED_HOST);
  });

  it('answers 409 saying what it found instead: a wrong token, no file, a file over 4 KiB', async () => {
    const { claim, verify } = await setup();
    const made = await claim();
    host.file = { status: 200, body: 'psi-verify-someone-else' };
    const wrong = await verify(made);
    expect(wrong.status).toBe(409);
    expect(wrong.json.error.code).toBe('conflict');
    expect(wrong.json.error.message).toContain('holds another value');
    expect(wrong.json.error.message).toContain('no TXT record at _payable-service-index.127.0.0.1');
    host.file = { status: 404, body: '' };
    const missing = await verify(made);
    expect(missing.json.error.message).toContain('answered HTTP 404');
    host.file = { status: 200, body: 'x'.repeat(5000) };
    expect((await verify(made)).json.error.message).toContain('over 4096 bytes');
    host.file = { status: 404, body: '' };
    expect((await verify({ id: 'clm_unknown', claim_secret: made.claim_secret })).status).toBe(401);
  });

  it('refuses an expired claim', async () => {
    const { claim, verify, advance } = await setup();
    const made = await claim();
    host.file = { status: 200, body: made.token };
    advance(7 * 86_400_000 + 1);
    const expired = await verify(made);
    host.file = { status: 404, body: '' };
    expect(expired.status).toBe(409);
    expect(expired.json.error.message).toMatch(/expired/);
  });

  it('a newer verified claim replaces the key: the old one answers 401', async () => {
    const { request, becomeOwner, asOwner } = await setup();
    const first = await becomeOwner();
    const second = await becomeOwner();
    expect(second).not.toBe(first);
    const stale = await request(`/api/v1/services/${serviceId()}`, asOwner(first, 'PATCH', '', { name: 'Stale' }));
    expect(stale.status).toBe(401);
    expect(stale.json.error.code).toBe('unauthorized');
    expect((await request(`/api/v1/services/${serviceId()}`, asOwner(second, 'PATCH', '', { name: 'Fresh' }))).json.name).toBe('Fresh');
  });

  it('verifying needs the claim secret: without it, with a wrong one or another claim\'s, 401 and nothing learned', async () => {
    const { claim, verify, request, db } = await setup();
    const made = await claim();
    const other = await claim('192.0.2.1', 'other-example-com');
    expect(made.claim_secret).toMatch(/^clms_[A-Za-z0-9_-]{43}$/);
    const stored = JSON.stringify(db.prepare('SELECT * FROM claims').all());
    expect(stored).not.toContain(made.claim_secret);
    expect(stored).not.toContain(made.claim_secret.slice(5));
    host.file = { status: 200, body: made.token };
    host.hits.length = 0;
    try {
      const bare = await request(`/api/v1/claims/${made.id}/verify`, { method: 'POST' });
      const refusals = [
        bare,
        await verify({ id: made.id, claim_secret: `clms_${'A'.repeat(43)}` }),
        await verify({ id: made.id, claim_secret: other.claim_secret }),
        await verify({ id: made.id, claim_secret: made.token }),
        await verify({ id: 'clm_unknown', claim_secret: made.claim_secret }),
      ];
      for (const refused of refusals) {
        expect(refused.status).toBe(401);
        expect(ErrorResponse.parse(refused.json).error.code).toBe('unauthorized');
        expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(refused.text).not.toContain(serviceId());
        expect(refused.text).not.toContain('psi_');
      }
      // A wrong secret and an unknown claim answer alike: the answer tells nothing of whether the claim exists.
      expect(refusals[4]!.text).toBe(refusals[1]!.text);
      expect(host.hits).toEqual([]);
      const verified = await verify(made);
      expect(verified.status).toBe(200);
      expect(ClaimVerified.parse(verified.json).service_id).toBe(serviceId());
    } finally {
      host.file = { status: 404, body: '' };
    }
  });

  it('/openapi.json answers claim_secret and puts verify and the owner routes behind bearer schemes', async () => {
    const { request } = await setup();
    const document = (await request('/openapi.json')).json;
    expect(document.components.securitySchemes).toMatchObject({ claimSecret: { type: 'http', scheme: 'bearer' }, ownerKey: { type: 'http', scheme: 'bearer' } });
    expect(document.paths['/api/v1/claims/{id}/verify'].post.security).toEqual([{ claimSecret: [] }]);
    expect(Object.keys(document.paths['/api/v1/claims/{id}/verify'].post.responses)).toContain('401');
    expect(document.paths['/api/v1/services/{id}'].patch.security).toEqual([{ ownerKey: [] }]);
    expect(document.paths['/api/v1/services/{id}'].get.security).toBeUndefined();
    expect(document.components.schemas.Claim.required).toContain('claim_secret');
  });

  it('limits claims and verifications per client and service: a client exhausting them does not lock the owner out', async () => {
    const { claim, verify, request, from } = await setup();
    const claimAs = (client: string) => request('/api/v1/claims', postJson({ service_id: serviceId() }, from(client)));
    const outsider = '198.51.100.7';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await claimAs(outsider)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    const refused = await claimAs(outsider);
    expect(refused.json.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const theirs = await claim(outsider, 'other-example-com');
    const verifications: number[] = [];
    for (let i = 0; i < 21; i += 1) verifications.push((await verify(theirs, outsider)).status);
    expect(verifications.slice(0, 20)).toEqual(Array(20).fill(409));
    expect(verifications[20]).toBe(429);

    const owner = '203.0.113.50';
    const made = await claim(owner);
    host.file = { status: 200, body: made.token };
    try {
      const verified = await verify(made, owner);
      expect(verified.status).toBe(200);
      expect(ClaimVerified.parse(verified.json).owner_key).toMatch(/^psi_/);
    } finally {
      host.file = { status: 404, body: '' };
    }
  });

  it('keeps a per-client limit over all services: 20 claims an hour', async () => {
    const { request, from } = await setup();
    const ids = ['other', 'one', 'two', 'three', 'four'].map((n) => `${n}-example-com`);
    const statuses: number[] = [];
    for (const id of ids) for (let i = 0; i < 5; i += 1) statuses.push((await request('/api/v1/claims', postJson({ service_id: id }, from('198.51.100.9')))).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(201));
    expect(statuses.slice(20)).toEqual(Array(5).fill(429));
    expect((await request('/api/v1/claims', postJson({ service_id: 'four-example-com' }, from('198.51.100.10')))).status).toBe(201);
  });
});

describe('owner routes', () => {
  const routes: Array<[string, string, unknown]> = [
    ['PATCH', '', { name: 'X' }],
    ['POST', '/delist', {}],
    ['POST', '/relist', undefined],
    ['POST', '/recheck', undefined],
  ];

  it.each(routes)('%s …%s answers 401 without a key, with a wrong key, and with another service\'s key', async (method, suffix, body) => {
    const { request, becomeOwner, asOwner, db } = await setup();
    const key = await becomeOwner();
    const path = (id: string) => `/api/v1/services/${id}${suffix}`;
    const bare = await request(path(serviceId()), { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await request(path(serviceId()), asOwner(`psi_${'A'.repeat(43)}`, method, '', body))).status).toBe(401);
    expect((await request(path('other-example-com'), asOwner(key, method, '', body))).status).toBe(401);
    // Nothing an owner does is recorded: the log holds only the crawl's listing of the services.
    expect(listChanges(db, { limit: 10 }).changes.map((change) => change.type).filter((type) => type !== 'listed')).toEqual([]);
  });

  it('PATCH edits, validates, wins over directory data in later crawls, and records the change', async () => {
    const { request, becomeOwner, asOwner, db } = await setup();
    const key = await becomeOwner();
    const path = `/api/v1/services/${serviceId()}`;
    const edit = (body: unknown) => request(path, asOwner(key, 'PATCH', '', body));
    for (const [body, code] of [
      [{ docs_url: 'http://docs.example.com' }, 'invalid_json'],
      [{ docs_url: 'javascript:alert(1)' }, 'invalid_json'],
      [{ name: 'n'.repeat(121) }, 'invalid_json'],
      [{ name: '' }, 'invalid_json'],
      [{ colour: 'red' }, 'invalid_json'],
      [{}, 'invalid_json'],
      [{ main_endpoint: 'https://elsewhere.example/pay' }, 'invalid_endpoint'],
    ] as const) {
      const refused = await edit(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.error.code).toBe(code);
    }
    const edited = await edit({ name: 'Owner Name', category: 'weather', main_endpoint: `${host.origin}/other`, docs_url: 'https://docs.example.com/api' });
    expect(edited.status).toBe(200);
    const detail = ServiceDetail.parse(edited.json);
    expect(detail).toMatchObject({ name: 'Owner Name', category: 'weather', endpoint: `${host.origin}/other`, price: { usd: 0.05 } });
    expect(detail.owner).toMatchObject({ docs_url: 'https://docs.example.com/api', edited: ['name', 'category', 'main_endpoint', 'docs_url'] });
    const [change] = listChanges(db, { service: serviceId(), types: ['edited'], limit: 10 }).changes;
    expect(change).toMatchObject({ type: 'edited', before: { name: null }, after: { name: 'Owner Name' } });

    // A later crawl brings the directory's name back: the owner's wins, and filters follow the owner's category.
    upsertServices(db, [ownedService()], TEST_NOW.toISOString());
    const after = ServiceDetail.parse((await request(path)).json);
    expect(after).toMatchObject({ name: 'Owner Name', category: 'weather', endpoint: `${host.origin}/other` });
    expect(ServiceList.parse((await request('/api/v1/services?category=weather')).json).services.map((s) => s.id)).toEqual([serviceId()]);
    // Null hands a field back to the directories.
    expect((await edit({ docs_url: null })).json.owner.edited).toEqual(['name', 'category', 'main_endpoint']);
  });

  it('delist takes the service out of lists, counts and detail until relisted, across crawls', async () => {
    const { request, becomeOwner, asOwner, db } = await setup();
    const key = await becomeOwner();
    const stats = async () => Stats.parse((await request('/api/v1/stats')).json);
    const before = await stats();
    const delisted = await request(`/api/v1/services/${serviceId()}/delist`, asOwner(key, 'POST', '', { reason: 'Retired' }));
    expect(delisted.json).toEqual({ status: 'delisted', service_id: serviceId(), reason: 'Retired' });
    const gone = await request(`/api/v1/services/${serviceId()}`);
    expect(gone.status).toBe(404);
    expect(gone.json.error.message).toMatch(/its owner delisted it \(Retired\)/);
    expect((await stats()).total).toBe(before.total - 1);
    expect(ServiceList.parse((await request('/api/v1/services?q=Directory')).json).services).toEqual([]);
    expect((await request(`/api/v1/services/${serviceId()}/delist`, asOwner(key, 'POST', '', {}))).status).toBe(409);

    upsertServices(db, [ownedService()], TEST_NOW.toISOString());
    expect((await request(`/api/v1/services/${serviceId()}`)).status).toBe(404);
    expect((await stats()).total).toBe(before.total - 1);

    const relisted = await request(`/api/v1/services/${serviceId()}/relist`, asOwner(key, 'POST', ''));
    expect(relisted.status).toBe(200);
    expect(ServiceDetail.parse(relisted.json)).toMatchObject({ id: serviceId(), owner_verified: true, first_indexed: TEST_NOW.toISOString() });
    expect((await stats()).total).toBe(before.total);
    expect((await request(`/api/v1/services/${serviceId()}/relist`, asOwner(key, 'POST', ''))).status).toBe(409);
    const types = listChanges(db, { service: serviceId(), limit: 10 }).changes.map((c) => c.type);
    expect(types).toEqual(['listed', 'delisted', 'relisted']);
  });

  it('limits owner actions to 10 an hour per service: the rest answer 429 with Retry-After and write nothing', async () => {
    const { request, becomeOwner, asOwner, db } = await setup();
    const key = await becomeOwner();
    const path = `/api/v1/services/${serviceId()}`;
    const actions = [
      (i: number) => request(path, asOwner(key, 'PATCH', '', { name: `Name ${i}` })),
      () => request(`${path}/delist`, asOwner(key, 'POST', '', { reason: 'Moving' })),
      () => request(`${path}/relist`, asOwner(key, 'POST', '')),
    ];
    const answers = [];
    for (let i = 0; i < 30; i += 1) answers.push(await actions[i % 3]!(i));
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(200));
    for (const refused of answers.slice(10)) {
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const owned = listChanges(db, { service: serviceId(), limit: 100 }).changes.filter((c) => c.type !== 'listed');
    expect(owned.map((c) => c.type)).toEqual(['edited', 'delisted', 'relisted', 'edited', 'delisted', 'relisted', 'edited', 'delisted', 'relisted', 'edited']);
    expect(ServiceDetail.parse((await request(path)).json).name).toBe('Name 9');
  });

  it('recheck probes the main endpoint now, at most once a minute per service', async () => {
    const { request, becomeOwner, asOwner, advance } = await setup();
    const key = await becomeOwner();
    const path = `/api/v1/services/${serviceId()}/recheck`;
    const first = await request(path, asOwner(key, 'POST', ''));
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ ok: true, status_code: 402, method: 'GET' });
    expect(host.hits).toContain('GET /quote');
    const detail = ServiceDetail.parse((await request(`/api/v1/services/${serviceId()}`)).json);
    expect(detail.live).toBe(true);
    expect(detail.probes[0]).toMatchObject({ ok: true, status_code: 402 });
    const soon = await request(path, asOwner(key, 'POST', ''));
    expect(soon.status).toBe(429);
    expect(Number(soon.headers.get('retry-after'))).toBeGreaterThan(0);
    advance(61_000);
    expect((await request(path, asOwner(key, 'POST', ''))).status).toBe(200);
  });
});

describe('a delisting by another process', () => {
  it('reaches the server\'s cache of detail answers: the next lookup answers 404', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'psi-delist-'));
    const path = join(dir, 'index.db');
    const server = openDatabase(path);
    const operator = openDatabase(path);
    try {
      upsertServices(server, [makeService({ id: 'cached-example-com' })], TEST_NOW.toISOString());
      const app = createApp({ db: server, config: testConfig(), now: () => TEST_NOW });
      expect((await app.request('/api/v1/services/cached-example-com')).status).toBe(200);
      expect(delistService(operator, 'cached-example-com', { reason: 'Spam', by: 'operator', now: TEST_NOW.toISOString() })).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const after = await app.request('/api/v1/services/cached-example-com');
      expect(after.status).toBe(404);
      expect(((await after.json()) as { error: { message: string } }).error.message).toContain('an operator delisted it (Spam)');
    } finally {
      server.close();
      operator.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
