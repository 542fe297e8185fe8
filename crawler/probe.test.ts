import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveApp } from '../api/app.ts';
import { DEMO_SERVICES } from '../api/demo/registry.ts';
import { listDemoParams } from '../api/demo/query.ts';
import { createTestApp } from '../api/testing.ts';
import { BEHAVIOURS } from '../scripts/fleet/behaviours.ts';
import { toPaymentRequiredHeader } from '../scripts/fleet/challenges.ts';
import { startFleet, type Fleet } from '../scripts/fleet.ts';
import { createProbeAgent, probeEndpoint, shouldRetry, type ProbeAgent, type ProbeOptions, type ProbeTarget } from './probe.ts';
import { parseAllowList } from '../net/guard.ts';

const TIMEOUT_MS = 500;
const loopback = parseAllowList('127.0.0.1');
const noAllow = parseAllowList(undefined);

interface Seen {
  method: string;
  path: string;
  body: string;
  headers: IncomingMessage['headers'];
}

/** A real server for what the fleet does not do; it records every request it sees. */
async function startServer(handle: (req: IncomingMessage, res: ServerResponse, seen: Seen[]) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', body, headers: req.headers });
      handle(req, res, seen);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => (server.closeAllConnections(), new Promise((done) => server.close(done))) };
}

const payment402 = (res: ServerResponse, url: string, padBytes = 0): void => {
  res.writeHead(402, { 'payment-required': toPaymentRequiredHeader({ url, amount: '10000', description: 'x' }, padBytes) });
  res.end('{}');
};

/** The real tempo challenge (openai.mpp.tempo.xyz) with `chainId` taken out of its request, encoded as captured. */
const TEMPO_WITHOUT_CHAIN_ID = readFileSync(new URL('./fixtures/challenges/mpp-tempo-session-www-authenticate.openai-mpp-tempo-xyz.txt', import.meta.url), 'utf8')
  .trim()
  .replace(/request="([^"]+)"/, (_all, encoded: string) => {
    const { methodDetails: { chainId: _chainId, ...details }, ...request } = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    return `request="${Buffer.from(JSON.stringify({ ...request, methodDetails: details })).toString('base64url')}"`;
  });

let fleet: Fleet;
let extra: Awaited<ReturnType<typeof startServer>>;
let agent: ProbeAgent;
const agents: ProbeAgent[] = [];
const newAgent = (...args: Parameters<typeof createProbeAgent>): ProbeAgent => {
  const created = createProbeAgent(...args);
  agents.push(created);
  return created;
};
const probe = (target: ProbeTarget, options: Partial<ProbeOptions> = {}) => probeEndpoint(target, { agent, timeoutMs: TIMEOUT_MS, ...options });
const endpointOf = (behaviour: string) => {
  const found = fleet.endpoints.find((endpoint) => endpoint.behaviour === behaviour);
  if (!found) throw new Error(behaviour);
  return found;
};

beforeAll(async () => {
  fleet = await startFleet({ count: BEHAVIOURS.length, behaviours: BEHAVIOURS, latency: 'none', probeTimeoutMs: TIMEOUT_MS });
  extra = await startServer((req, res, seen) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const hits = seen.filter((s) => s.path === req.url).length;
    const to = url.searchParams.get('to') ?? '/';
    switch (url.pathname) {
      case '/redirect':
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to });
        return res.end();
      case '/once-unavailable':
        if (hits === 1) return res.writeHead(503).end();
        return payment402(res, url.href);
      case '/retry-later':
        return res.writeHead(429, { 'retry-after': '120' }).end();
      case '/reset':
        return req.socket.destroy();
      case '/huge-header':
        return payment402(res, url.href, 80_000);
      case '/tempo-without-chain-id':
        return res.writeHead(402, { 'www-authenticate': TEMPO_WITHOUT_CHAIN_ID, 'content-type': 'application/problem+json' }).end('{}');
      case '/post-only-broken':
        if (req.method !== 'POST') return res.writeHead(404).end();
        return res.writeHead(402, { 'content-type': 'application/json' }).end('{"x402Version":2,"accepts":[]}');
      default:
        return payment402(res, url.href);
    }
  });
  agent = newAgent({ allow: loopback });
});

afterAll(async () => {
  await Promise.all(agents.map((created) => created.dispatcher.close()));
  await Promise.all([fleet.close(), extra.close()]);
});

describe('probeEndpoint against the fleet', () => {
  it('records the exact expected outcome for every behaviour', async () => {
    const outcomes = await Promise.all(fleet.endpoints.map((endpoint) => probe(endpoint)));
    const actual = outcomes.map((o, i) => [fleet.endpoints[i]?.behaviour, o.ok, o.reason, o.detected_rails, o.status_code, o.method]);
    const expected = fleet.endpoints.map(({ behaviour, expected: e }) => [behaviour, e.ok, e.reason, e.rails, e.status, e.method]);
    expect(actual).toEqual(expected);
  });

  it('states the terms of the live challenge', async () => {
    expect((await probe(endpointOf('x402-v2-header'))).terms).toMatchObject({ rails: ['x402'], chains: ['base'], assets: ['USDC'] });
    expect((await probe(endpointOf('mpp'))).terms).toMatchObject({ rails: ['mpp'], chains: ['tempo'], assets: ['USD', 'USDC'] });
    expect((await probe(endpointOf('dual-rail'))).signals).toEqual(['x402-v2-header', 'mpp-header']);
  });

  it('records no chain for a tempo challenge that names none, and keeps the service live', async () => {
    const outcome = await probe({ url: `${extra.origin}/tempo-without-chain-id` });
    expect(outcome).toMatchObject({ ok: true, detected_rails: ['mpp'], signals: ['mpp-header'] });
    expect(outcome.terms).toEqual({
      rails: ['mpp'], chains: [], assets: ['0x20c000000000000000000000b9537d11c60e8b50'], price: { usd: null, display: null },
      // Without a chain the decimals are unknown: the offer keeps its atomic amount and states no USD.
      offers: [expect.objectContaining({ rail: 'mpp', chain: null, usd: null, amount: expect.objectContaining({ decimal: null }) })],
    });
  });

  it('falls back from GET to POST {} when GET answers 405, and records POST', async () => {
    const outcome = await probe({ url: endpointOf('post-only').url, method: null });
    expect(outcome).toMatchObject({ ok: true, method: 'POST', status_code: 402 });
  });

  it('sends the example body to a server that validates before the 402', async () => {
    const { url } = endpointOf('validation-first');
    expect(await probe({ url, method: 'POST', body: { prompt: 'hi' } })).toMatchObject({ ok: true, method: 'POST' });
    expect(await probe({ url, method: 'POST' })).toMatchObject({ ok: false, reason: 'answered 400', method: 'POST' });
  });

  it('follows 3 redirects and records the final URL; refuses a 4th', async () => {
    const listed = endpointOf('redirect-chain');
    const chain = await probe(listed);
    expect(chain).toMatchObject({ ok: true, final_url: listed.url.replace(/\/quote$/, '/hop/3') });
    expect(await probe(endpointOf('too-many-redirects'))).toMatchObject({ ok: false, reason: 'too many redirects', status_code: null });
  });

  it('ends a slow answer and trickled headers at the time limit', async () => {
    const [slow, slowloris] = await Promise.all([probe(endpointOf('slow')), probe(endpointOf('slowloris'))]);
    for (const outcome of [slow, slowloris]) {
      expect(outcome).toMatchObject({ ok: false, reason: 'timed out after 0.5 s', status_code: null });
      expect(outcome.latency_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(outcome.latency_ms).toBeLessThan(TIMEOUT_MS + 1500);
    }
  });

  it('stops reading an endless body at 64 KiB, quickly', async () => {
    const outcome = await probe(endpointOf('endless-body'), { timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ ok: false, reason: 'body over 64 KiB', status_code: 402 });
    expect(outcome.latency_ms).toBeLessThan(1_000);
  });

  it('accepts a 40 KB PAYMENT-REQUIRED header; refuses one over the 64 KiB limit', async () => {
    expect(await probe(endpointOf('oversized-header'))).toMatchObject({ ok: true, detected_rails: ['x402'] });
    expect(await probe({ url: `${extra.origin}/huge-header` })).toMatchObject({ ok: false, reason: 'headers over 64 KiB' });
  });
});

describe('requests', () => {
  it('sends a non-browser request and never HEAD', async () => {
    const now = () => new Date('2026-01-02T03:04:05.000Z');
    const outcome = await probe({ url: `${extra.origin}/plain?q=secret`, method: 'head' }, { now });
    expect(outcome).toMatchObject({ ok: true, method: 'GET', probed_at: '2026-01-02T03:04:05.000Z', final_url: `${extra.origin}/plain` });
    const { method, headers } = extra.seen.find((s) => s.path.startsWith('/plain')) as Seen;
    expect([method, headers.accept, headers['user-agent']]).toEqual(['GET', 'application/json', 'payable-service-index-probe/1.0']);
  });

  it('re-issues the method and body on every redirect, 301, 302 and 303 included', async () => {
    const via = (status: number) => `${extra.origin}/redirect?status=${status}&to=/target-${status}`;
    for (const status of [301, 302, 303, 307, 308]) {
      await probe({ url: via(status), method: 'POST', body: { a: 1 } });
      expect(extra.seen.find((s) => s.path === `/target-${status}`), String(status)).toMatchObject({ method: 'POST', body: '{"a":1}' });
    }
  });

  it('records what a POST fallback found when it answered 402, even with a challenge it cannot use', async () => {
    expect(await probe({ url: `${extra.origin}/post-only-broken` })).toMatchObject({ ok: false, status_code: 402, method: 'POST', reason: '402 without accepts' });
  });

  it('retries once on 429 after a short Retry-After', async () => {
    const limited = await startFleet({ count: 1, behaviours: ['rate-limited'], latency: 'none', probeTimeoutMs: 3_000 });
    try {
      const started = performance.now();
      expect(await probe(limited.endpoints[0] as ProbeTarget, { timeoutMs: 3_000 })).toMatchObject({ ok: true, status_code: 402 });
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
    } finally {
      await limited.close();
    }
  });

  it('retries a 503 without Retry-After once; records a long Retry-After without waiting', async () => {
    expect(await probe({ url: `${extra.origin}/once-unavailable` }, { timeoutMs: 3_000 })).toMatchObject({ ok: true });
    const outcome = await probe({ url: `${extra.origin}/retry-later` }, { timeoutMs: 3_000 });
    expect(outcome).toMatchObject({ ok: false, reason: 'answered 429', status_code: 429 });
    expect(extra.seen.filter((s) => s.path === '/retry-later')).toHaveLength(1);
  });

  it('hangs up once it has read each answer, through redirects and the POST fallback', async () => {
    const open = new Set<unknown>();
    const server = createServer((req, res) => {
      if (req.url === '/moved') return res.writeHead(307, { location: '/paid' }).end();
      if (req.method === 'GET') return res.writeHead(405).end();
      payment402(res, `http://x${req.url}`);
    });
    server.on('connection', (socket) => (open.add(socket), socket.once('close', () => open.delete(socket))));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const outcome = await probe({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/moved` });
      expect(outcome).toMatchObject({ ok: true, method: 'POST' });
      // A kept-alive connection would stay open for seconds (Node's server keeps one for 5 s).
      await vi.waitFor(() => expect(open.size).toBe(0), { timeout: 1_000 });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('retries a reset connection once, then records it', async () => {
    expect(await probe({ url: `${extra.origin}/reset` }, { timeoutMs: 3_000 })).toMatchObject({ ok: false, reason: 'connection reset' });
    expect(extra.seen.filter((s) => s.path === '/reset')).toHaveLength(2);
  });

  it('decides retries in one place', () => {
    expect(shouldRetry({ status: 429, retryAfterMs: 3_000 }, 1)).toBe(true);
    expect(shouldRetry({ status: 503, retryAfterMs: null }, 1)).toBe(true);
    expect(shouldRetry({ status: 429, retryAfterMs: 3_001 }, 1)).toBe(false);
    expect(shouldRetry({ status: 429, retryAfterMs: 0 }, 2)).toBe(false);
    expect(shouldRetry({ status: 500, retryAfterMs: 0 }, 1)).toBe(false);
    expect(shouldRetry({ kind: 'timeout', limitMs: 1 }, 1)).toBe(false);
    expect(shouldRetry({ kind: 'blocked', message: 'refused: private address' }, 1)).toBe(false);
  });
});

describe('SSRF guard', () => {
  it.each([['http://169.254.169.254/latest/meta-data/'], ['http://10.0.0.1/'], ['http://[::ffff:169.254.169.254]/']])(
    'refuses a redirect to %s without connecting',
    async (to) => {
      const outcome = await probe({ url: `${extra.origin}/redirect?to=${encodeURIComponent(to)}` }, { timeoutMs: 5_000 });
      expect(outcome).toMatchObject({ ok: false, reason: 'refused: private address', status_code: null, final_url: new URL(to).href });
      expect(outcome.latency_ms).toBeLessThan(500);
    },
  );

  it('refuses 127.0.0.1 without an allow list and probes it with one', async () => {
    const url = endpointOf('x402-v2-header').url;
    const strict = newAgent({ allow: noAllow });
    expect(await probe({ url }, { agent: strict })).toMatchObject({ ok: false, reason: 'refused: private address' });
    expect(await probe({ url })).toMatchObject({ ok: true });
  });

  it('reaches the own origin for its demo services only: a listed service redirecting to its API is refused', async () => {
    // The index on a loopback address of its own, so the allow list that lets the listed service (127.0.0.1) be
    // probed does not cover it: the own origin is reached only as the own-service exemption allows.
    const index = serveApp(createTestApp().app, { hostname: '127.0.0.2', port: 0 });
    await index.ready();
    try {
      const own = new URL(index.url!).origin;
      const demo = DEMO_SERVICES.find((service) => service.id === 'index-demo-web-search')!;
      const query = new URLSearchParams(listDemoParams(demo.query).map((param) => [param.name, String(param.example)]));
      const demoUrl = `${own}${demo.path}?${query}`;
      const agent = newAgent({ allow: loopback, ownServiceUrls: DEMO_SERVICES.map((service) => `${own}${service.path}`) });
      const redirectTo = (to: string) => probe({ url: `${extra.origin}/redirect?to=${encodeURIComponent(to)}` }, { agent, timeoutMs: 5_000 });

      for (const api of [`${own}/api/v1/services`, `${own}/api/v1/purchase`, `${own}${demo.path}/../../v1/stats`, `${own}/`]) {
        expect(await redirectTo(api)).toMatchObject({ ok: false, reason: 'refused: private address', status_code: null });
      }
      expect(await probe({ url: `${own}/api/v1/stats` }, { agent })).toMatchObject({ ok: false, reason: 'refused: private address' });
      expect(await redirectTo(demoUrl)).toMatchObject({ ok: true, status_code: 402, detected_rails: ['x402'], final_url: `${own}${demo.path}` });
      expect(await probe({ url: demoUrl }, { agent })).toMatchObject({ ok: true, status_code: 402 });
      // Without the exemption the same demo service is a loopback address like any other.
      expect(await probe({ url: demoUrl }, { agent: newAgent({ allow: loopback }) })).toMatchObject({ ok: false, reason: 'refused: private address' });
    } finally {
      await index.close(true);
    }
  });

  it('ends at the time limit while a name is still being looked up, and records no more than the limit', async () => {
    const slowResolver: LookupFunction = (_host, options, callback) => {
      setTimeout(() => (options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)), 3_000);
    };
    const url = endpointOf('x402-v2-header').url.replace('127.0.0.1', 'slow-dns.example');
    const started = performance.now();
    const outcome = await probe({ url }, { agent: newAgent({ allow: loopback, lookup: slowResolver }) });
    expect(outcome).toMatchObject({ ok: false, reason: 'timed out after 0.5 s', status_code: null });
    expect(outcome.latency_ms).toBeLessThan(TIMEOUT_MS + 300);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 300);
  });

  it('checks the addresses a name resolves to when connecting', async () => {
    const toLoopback: LookupFunction = (_host, options, callback) =>
      options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
    const url = endpointOf('x402-v2-header').url.replace('127.0.0.1', 'fleet.example');
    expect(await probe({ url }, { agent: newAgent({ allow: noAllow, lookup: toLoopback }) })).toMatchObject({
      ok: false,
      reason: 'refused: private address',
    });
    expect(await probe({ url }, { agent: newAgent({ allow: loopback, lookup: toLoopback }) })).toMatchObject({ ok: true });
  });

  it('words failures a person understands', async () => {
    const noSuchHost: LookupFunction = (host, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), '', 4);
    const closed = await startServer(() => {});
    await closed.close();
    const cases: Array<[ProbeTarget, Partial<ProbeOptions>, string]> = [
      [{ url: 'http://nowhere.example/' }, { agent: newAgent({ allow: noAllow, lookup: noSuchHost }) }, 'DNS lookup failed'],
      [{ url: `${closed.origin}/` }, {}, 'connection refused'],
      [{ url: 'http://localhost/' }, {}, 'refused: private host name'],
      [{ url: 'not a url' }, {}, 'refused: not an absolute URL'],
      [{ url: 'ftp://files.example/' }, {}, 'refused: not http(s)'],
    ];
    for (const [target, options, reason] of cases) {
      expect(await probe(target, options)).toMatchObject({ ok: false, reason, status_code: null });
    }
  });
});
