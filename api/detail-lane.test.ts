import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { H3 } from 'h3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FRESHNESS_CHECK_MS } from '../data/detail-cache.ts';
import { openDatabase } from '../data/db.ts';
import { recordProbe } from '../data/probes.ts';
import { upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { serveApp } from './app.ts';
import { toPlainDetailId, withDetailLane } from './detail-lane.ts';
import { createHttpLayer } from './http.ts';
import { createRateLimiter } from './ratelimit.ts';
import { ErrorResponse, ServiceDetail } from '../domain/schemas.ts';
import { createTestApp, TEST_NOW } from './testing.ts';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('toPlainDetailId', () => {
  it('reads the lower-cased id of a detail request with nothing to decode, and nothing else', () => {
    const cases: Array<[string, string | null]> = [
      ['/api/v1/services/api-example-com', 'api-example-com'],
      ['/api/v1/services/API-Example-COM?fields=all', 'api-example-com'],
      ['http://x:8080/api/v1/services/API-Example-COM?fields=all', 'api-example-com'],
      ['https://index.test/api/v1/services/index-demo-web-search', 'index-demo-web-search'],
      ['/api/v1/services/batch', null],
      ['/api/v1/services/api%2Dexample-com', null],
      ['/api/v1/services/', null],
      ['/api/v1/services/a/b', null],
      ['/api/v1/services/a-com/', null],
      ['/api/v1/services/a.com', null],
      ['/api/v1/services', null],
      ['/api/v1/stats', null],
      ['/other/api/v1/services/a-com', null],
      ['http://x/other/api/v1/services/a-com', null],
      ['//api/v1/services/a-com', null],
    ];
    expect(cases.map(([target]) => toPlainDetailId(target))).toEqual(cases.map(([, id]) => id));
  });
});

describe('withDetailLane', () => {
  /** The real layer and lane on a real database over a real socket; the router is a recorder, to see what reaches it. */
  async function setUp(limit = 100) {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], TEST_NOW.toISOString());
    const layer = createHttpLayer({ limiter: createRateLimiter({ limit, windowSeconds: 60 }), rateLimit: { limit, windowSeconds: 60 }, trustProxy: false, nowMs: () => TEST_NOW.getTime() });
    const routed: string[] = [];
    const server: Server = createServer(withDetailLane((request, response) => {
      routed.push(`${request.method} ${request.url}`);
      response.writeHead(599).end('routed');
    }, layer, db, { admittedShare: 1 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const call = async (path: string, init?: RequestInit) => fetch(`${origin}${path}`, init);
    return { call, routed };
  }

  it('answers GET and HEAD of a known service itself, and hands every other request to the router', async () => {
    const { call, routed } = await setUp();
    const get = await call('/api/v1/services/A-Test');
    expect([get.status, get.headers.get('content-length'), get.headers.get('transfer-encoding')]).toEqual([200, expect.any(String), null]);
    const text = await get.text();
    expect(Number(get.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(ServiceDetail.parse(JSON.parse(text)).id).toBe('a-test');
    const head = await call('/api/v1/services/a-test', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, get.headers.get('content-length')]);
    const held = await call('/api/v1/services/a-test', { headers: { 'if-none-match': get.headers.get('etag')! } });
    expect([held.status, await held.text()]).toEqual([304, '']);
    expect(routed).toEqual([]);

    for (const [method, path] of [['GET', '/api/v1/services/nope-test'], ['GET', '/api/v1/services/a%2Dtest'], ['GET', '/api/v1/services/batch'],
      ['POST', '/api/v1/services/a-test'], ['OPTIONS', '/api/v1/services/a-test'], ['GET', '/api/v1/stats']] as const) {
      expect((await call(path, { method })).status).toBe(599);
    }
    expect(routed).toEqual(['GET /api/v1/services/nope-test', 'GET /api/v1/services/a%2Dtest', 'GET /api/v1/services/batch',
      'POST /api/v1/services/a-test', 'OPTIONS /api/v1/services/a-test', 'GET /api/v1/stats']);
  });

  it('spends one token a lookup, and hands a client over its limit to the router having spent nothing', async () => {
    const { call, routed } = await setUp(2);
    const remaining = [];
    for (let i = 0; i < 2; i++) remaining.push((await call('/api/v1/services/a-test')).headers.get('ratelimit-remaining'));
    expect(remaining).toEqual(['1', '0']);
    for (const path of ['/api/v1/services/a-test', '/api/v1/services/nope-test']) expect((await call(path)).status).toBe(599);
    expect(routed).toEqual(['GET /api/v1/services/a-test', 'GET /api/v1/services/nope-test']);
  });
});

describe('a lookup answered before srvx and the router', () => {
  /** The real app over a real socket, as `npm start` serves it. */
  async function listen(...args: Parameters<typeof createTestApp>) {
    const test = createTestApp(...args);
    const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
    await server.ready();
    closers.push(() => server.close(true));
    const origin = new URL(server.url!).origin;
    const call = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${origin}${path}`, init);
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
    };
    return { ...test, call };
  }

  it('is how the app answers a plain lookup on a socket: only the escaped one reaches h3', async () => {
    const router = vi.spyOn(H3.prototype, 'fetch');
    try {
      const { call } = await listen([makeService({ id: 'a-test' })]);
      expect((await call('/api/v1/services/a-test')).status).toBe(200);
      expect(router).not.toHaveBeenCalled();
      expect((await call('/api/v1/services/a%2Dtest')).status).toBe(200);
      expect(router).toHaveBeenCalledTimes(1);
    } finally {
      router.mockRestore();
    }
  });

  it('spends one token on a lookup of an unknown service, which the router answers 404', async () => {
    const { call } = await listen([], { config: { rateLimit: { limit: 5, windowSeconds: 60 } } });
    const unknown = await call('/api/v1/services/nope-test');
    expect([unknown.status, unknown.headers.get('ratelimit-remaining')]).toEqual([404, '4']);
  });

  it('answers a client over its limit 429 rate_limited, with Retry-After, spending nothing more', async () => {
    const { call } = await listen([makeService({ id: 'a-test' })], { config: { rateLimit: { limit: 1, windowSeconds: 60 } } });
    expect((await call('/api/v1/services/a-test')).status).toBe(200);
    const limited = await call('/api/v1/services/a-test');
    expect([limited.status, ErrorResponse.parse(limited.json).error.code, limited.headers.get('retry-after')]).toEqual([429, 'rate_limited', '60']);
  });

  it('holds a looked-up service only until the data changes: at once for this process, within FRESHNESS_CHECK_MS for another', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'psi-lane-'));
    try {
      const path = join(dir, 'index.db');
      const served = openDatabase(path);
      upsertServices(served, [makeService({ id: 'other-test' })], TEST_NOW.toISOString());
      const { call } = await listen([], { db: served });
      expect((await call('/api/v1/services/other-test')).json.live).toBeNull();
      recordProbe(served, { service_id: 'other-test', probed_at: '2026-11-01T13:00:00.000Z', ok: true, status_code: 402, method: 'GET', latency_ms: 9, reason: null, detected_rails: ['x402'] });
      expect((await call('/api/v1/services/other-test')).json).toMatchObject({ live: true, probes: [{ latency_ms: 9 }] });
      const crawler = openDatabase(path);
      recordProbe(crawler, { service_id: 'other-test', probed_at: '2026-11-01T14:00:00.000Z', ok: false, status_code: 404, method: 'GET', latency_ms: 3, reason: 'answered 404', detected_rails: [] });
      crawler.close();
      await new Promise((resolve) => setTimeout(resolve, FRESHNESS_CHECK_MS + 5));
      expect((await call('/api/v1/services/other-test')).json).toMatchObject({ probes: [{ reason: 'answered 404' }, { latency_ms: 9 }] });
      served.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers a failed read 500 internal_error in the Error shape, with no stack trace', async () => {
    const { call, db } = await listen([makeService({ id: 'a-test' })]);
    db.close();
    const { status, json, text, headers } = await call('/api/v1/services/a-test');
    expect(status).toBe(500);
    expect(ErrorResponse.parse(json).error.code).toBe('internal_error');
    expect(text).not.toContain('at ');
    expect(headers.get('ratelimit-limit')).not.toBeNull();
  });

  it('has the status, headers and bytes the router gives the same lookup, for GET, HEAD and a held ETag', async () => {
    const { call } = await listen([makeService({ id: 'cafe-test', name: 'Café ☕ API' })]);
    // An escaped id skips the lane: the router decodes it and answers the same service.
    const pairs = ['/api/v1/services/cafe-test', '/api/v1/services/cafe%2Dtest'];
    const first = await call(pairs[0]!);
    const etag = first.headers.get('etag')!;
    for (const init of [{}, { method: 'HEAD' }, { headers: { 'if-none-match': etag } }] satisfies RequestInit[]) {
      const [fast, routed] = [await call(pairs[0]!, init), await call(pairs[1]!, init)];
      expect([fast.status, fast.text]).toEqual([routed.status, routed.text]);
      const remaining = [fast, routed].map((answer) => Number(answer.headers.get('ratelimit-remaining')));
      expect(remaining[0]! - remaining[1]!).toBe(1);
      const comparable = (headers: Headers) => [...headers].filter(([name]) => name !== 'ratelimit-remaining' && name !== 'date');
      expect(comparable(fast.headers)).toEqual(comparable(routed.headers));
    }
    expect(JSON.parse(first.text).name).toBe('Café ☕ API');
  });
});
