import { H3 } from 'h3';
import { describe, expect, it, vi } from 'vitest';
import { createDetailCache } from '../data/detail-cache.ts';
import { upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { toPlainDetailId, withFastDetail } from './fast-detail.ts';
import { createHttpLayer } from './http.ts';
import { createRateLimiter } from './ratelimit.ts';
import { ErrorResponse, ServiceDetail } from './schemas.ts';
import { createTestApp, TEST_NOW } from './testing.ts';

describe('toPlainDetailId', () => {
  it('reads the lower-cased id of a detail URL with nothing to decode, and nothing else', () => {
    const cases: Array<[string, string | null]> = [
      ['http://x/api/v1/services/api-example-com', 'api-example-com'],
      ['http://x:8080/api/v1/services/API-Example-COM?fields=all', 'api-example-com'],
      ['https://index.test/api/v1/services/index-demo-web-search', 'index-demo-web-search'],
      ['http://x/api/v1/services/batch', null],
      ['http://x/api/v1/services/api%2Dexample-com', null],
      ['http://x/api/v1/services/', null],
      ['http://x/api/v1/services/a/b', null],
      ['http://x/api/v1/services/a-com/', null],
      ['http://x/api/v1/services/a.com', null],
      ['http://x/api/v1/services', null],
      ['http://x/api/v1/stats', null],
      ['http://x/other/api/v1/services/a-com', null],
    ];
    expect(cases.map(([url]) => toPlainDetailId(url))).toEqual(cases.map(([, id]) => id));
  });
});

describe('withFastDetail', () => {
  /** The real layer and cache on a real database; the router is a recorder, to see what reaches it. */
  function setUp(limit = 100) {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], TEST_NOW.toISOString());
    const layer = createHttpLayer({ limiter: createRateLimiter({ limit, windowSeconds: 60 }), rateLimit: { limit, windowSeconds: 60 }, trustProxy: false, nowMs: () => TEST_NOW.getTime() });
    const routed: string[] = [];
    const cache = createDetailCache(db);
    const reads: string[] = [];
    const fetch = withFastDetail((request) => {
      routed.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response('routed', { status: 599 });
    }, layer, { read: (id) => (reads.push(id), cache.read(id)) });
    const call = async (path: string, init?: RequestInit) => fetch(new Request(`http://index.test${path}`, init));
    return { call, routed, reads };
  }

  it('answers GET and HEAD of a known service itself, and hands every other request to the router', async () => {
    const { call, routed } = setUp();
    const get = await call('/api/v1/services/A-Test');
    expect(get.status).toBe(200);
    expect(ServiceDetail.parse(await get.json()).id).toBe('a-test');
    expect((await call('/api/v1/services/a-test', { method: 'HEAD' })).status).toBe(200);
    expect(routed).toEqual([]);

    for (const [method, path] of [['GET', '/api/v1/services/nope-test'], ['GET', '/api/v1/services/a%2Dtest'], ['GET', '/api/v1/services/batch'],
      ['POST', '/api/v1/services/a-test'], ['OPTIONS', '/api/v1/services/a-test'], ['GET', '/api/v1/stats']] as const) {
      expect((await call(path, { method })).status).toBe(599);
    }
    expect(routed).toEqual(['GET /api/v1/services/nope-test', 'GET /api/v1/services/a%2Dtest', 'GET /api/v1/services/batch',
      'POST /api/v1/services/a-test', 'OPTIONS /api/v1/services/a-test', 'GET /api/v1/stats']);
  });

  it('spends one token a lookup, and answers a client over its limit 429 without reading anything', async () => {
    const { call, routed, reads } = setUp(2);
    const remaining = [];
    for (let i = 0; i < 2; i++) remaining.push((await call('/api/v1/services/a-test')).headers.get('ratelimit-remaining'));
    expect(remaining).toEqual(['1', '0']);
    for (const path of ['/api/v1/services/a-test', '/api/v1/services/nope-test']) {
      const limited = await call(path);
      expect(limited.status).toBe(429);
      expect(ErrorResponse.parse(await limited.json()).error.code).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toBe('30');
    }
    expect(routed).toEqual([]);
    expect(reads).toEqual(['a-test', 'a-test']);
  });
});

describe('a lookup answered before routing', () => {
  it('is how the app answers a plain lookup: only the escaped one reaches h3', async () => {
    const router = vi.spyOn(H3.prototype, 'fetch');
    try {
      const { request } = createTestApp([makeService({ id: 'a-test' })]);
      expect((await request('/api/v1/services/a-test')).status).toBe(200);
      expect(router).not.toHaveBeenCalled();
      expect((await request('/api/v1/services/a%2Dtest')).status).toBe(200);
      expect(router).toHaveBeenCalledTimes(1);
    } finally {
      router.mockRestore();
    }
  });

  it('spends one token on a lookup of an unknown service, which the router answers 404', async () => {
    const { request } = createTestApp([], { config: { rateLimit: { limit: 5, windowSeconds: 60 } } });
    const unknown = await request('/api/v1/services/nope-test');
    expect([unknown.status, unknown.headers.get('ratelimit-remaining')]).toEqual([404, '4']);
  });

  it('answers a failed read 500 internal_error in the Error shape, with no stack trace', async () => {
    const { request, db } = createTestApp([makeService({ id: 'a-test' })]);
    db.close();
    const { status, json, text, headers } = await request('/api/v1/services/a-test');
    expect(status).toBe(500);
    expect(ErrorResponse.parse(json).error.code).toBe('internal_error');
    expect(text).not.toContain('at ');
    expect(headers.get('ratelimit-limit')).not.toBeNull();
  });

  it('has the status, headers and bytes the router gives the same lookup, for GET, HEAD and a held ETag', async () => {
    const { request } = createTestApp([makeService({ id: 'cafe-test', name: 'Café ☕ API' })]);
    // An escaped id skips the fast path: the router decodes it and answers the same service.
    const pairs = ['/api/v1/services/cafe-test', '/api/v1/services/cafe%2Dtest'];
    const first = await request(pairs[0]!);
    const etag = first.headers.get('etag')!;
    for (const init of [{}, { method: 'HEAD' }, { headers: { 'if-none-match': etag } }] satisfies RequestInit[]) {
      const [fast, routed] = [await request(pairs[0]!, init), await request(pairs[1]!, init)];
      expect([fast.status, fast.text]).toEqual([routed.status, routed.text]);
      const remaining = [fast, routed].map((answer) => Number(answer.headers.get('ratelimit-remaining')));
      expect(remaining[0]! - remaining[1]!).toBe(1);
      const withoutRemaining = (headers: Headers) => [...headers].filter(([name]) => name !== 'ratelimit-remaining');
      expect(withoutRemaining(fast.headers)).toEqual(withoutRemaining(routed.headers));
    }
    expect(JSON.parse(first.text).name).toBe('Café ☕ API');
  });
});
