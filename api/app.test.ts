import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../data/db.ts';
import { upsertServices } from '../data/services.ts';
import { recordProbe } from '../data/probes.ts';
import { makeService } from '../data/testing.ts';
import type { ServiceInput } from '../data/types.ts';
import { BatchResult, ErrorResponse, ServiceDetail, ServiceList, Stats } from '../domain/schemas.ts';
import { SPEC_SERVICES } from './purchase/testing/spec-table.ts';
import { createTestApp, postJson, TEST_NOW } from './testing.ts';

/** 60 services: a spread of rails, chains and assets; every third one live, every fifth one not live. */
function fixture(): ServiceInput[] {
  return Array.from({ length: 60 }, (_, i) => {
    const id = `svc-${String(i).padStart(2, '0')}-test`;
    const rails = i % 4 === 0 ? (['x402', 'mpp'] as const) : i % 4 === 1 ? (['mpp'] as const) : (['x402'] as const);
    const chains = i % 3 === 0 ? ['base'] : i % 3 === 1 ? ['solana'] : ['tempo', 'eip155:999'];
    return makeService({ id, rails: [...rails], chains, assets: i % 2 ? ['USDC'] : ['EURC'], name: i === 7 ? 'Weather oracle' : `Service ${i}` });
  });
}

function createFixtureApp(overrides: Parameters<typeof createTestApp>[1] = {}) {
  const test = createTestApp(fixture(), overrides);
  for (let i = 0; i < 60; i++) {
    const id = `svc-${String(i).padStart(2, '0')}-test`;
    if (i % 3 === 0 || i % 5 === 0) {
      recordProbe(test.db, { service_id: id, probed_at: TEST_NOW.toISOString(), ok: i % 3 === 0, status_code: i % 3 === 0 ? 402 : 404, method: 'GET', latency_ms: 120, reason: i % 3 === 0 ? null : '404 Not Found', detected_rails: i % 3 === 0 ? ['x402'] : [] });
    }
  }
  return test;
}

describe('GET /api/v1/services', () => {
  it('answers the list shape, live services first and then by id with sort=live, with counts over the whole match', async () => {
    const { request } = createFixtureApp();
    const { status, json } = await request('/api/v1/services?sort=live');
    expect(status).toBe(200);
    const list = ServiceList.parse(json);
    expect(list.counts).toEqual({ total: 60, live: 20, dual_rail: 15 });
    expect(list.page).toEqual({ limit: 100, offset: 0, next_offset: null, sort: 'live', ignored: [] });
    const liveness = list.services.map((s) => s.live === true);
    expect(liveness.slice(0, 20).every(Boolean)).toBe(true);
    expect(liveness.slice(20).some(Boolean)).toBe(false);
    const ids = list.services.map((s) => s.id);
    expect(ids.slice(0, 20)).toEqual([...ids.slice(0, 20)].sort());
    expect(ids.slice(20)).toEqual([...ids.slice(20)].sort());
    expect(list.services.find((s) => s.id === 'svc-05-test')?.live).toBe(false);
    expect(list.services.find((s) => s.id === 'svc-01-test')?.live).toBeNull();
  });

  it('pages by next_offset, visiting every service exactly once', async () => {
    const { request } = createFixtureApp();
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const { json } = await request(`/api/v1/services?limit=7&offset=${offset}`);
      const list = ServiceList.parse(json);
      expect(list.page.limit).toBe(7);
      seen.push(...list.services.map((s) => s.id));
      offset = list.page.next_offset;
    }
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
  });

  it.each([
    ['limit=0', { limit: 1, offset: 0 }],
    ['limit=-3', { limit: 1, offset: 0 }],
    ['limit=9999', { limit: 500, offset: 0 }],
    ['limit=abc', { limit: 100, offset: 0 }],
    ['limit=2.5', { limit: 100, offset: 0 }],
    ['offset=-5', { limit: 100, offset: 0 }],
    ['offset=x', { limit: 100, offset: 0 }],
    ['limit=10&offset=55', { limit: 10, offset: 55 }],
  ])('clamps %s and reports what it applied', async (query, page) => {
    const { request } = createFixtureApp();
    const { json } = await request(`/api/v1/services?${query}`);
    expect(ServiceList.parse(json).page).toMatchObject(page);
  });

  it('answers an empty last page past the end', async () => {
    const { request } = createFixtureApp();
    const { json } = await request('/api/v1/services?offset=1000');
    expect(json).toMatchObject({ services: [], page: { offset: 1000, next_offset: null }, counts: { total: 60 } });
  });

  it.each([
    ['rail=MPP', 30, (s: { rails: string[] }) => s.rails.includes('mpp')],
    ['rail=x402', 45, (s: { rails: string[] }) => s.rails.includes('x402')],
    ['chain=Base', 20, (s: { chains: string[] }) => s.chains.includes('base')],
    ['chain=eip155:8453', 20, (s: { chains: string[] }) => s.chains.includes('base')],
    ['chain=solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 20, (s: { chains: string[] }) => s.chains.includes('solana')],
    ['chain=EIP155:999', 20, (s: { chains: string[] }) => s.chains.includes('eip155:999')],
    ['asset=usdc', 30, (s: { assets: string[] }) => s.assets.includes('USDC')],
    ['live=true', 20, (s: { live: boolean | null }) => s.live === true],
    ['live=FALSE', 40, (s: { live: boolean | null }) => s.live !== true],
    ['rail=mpp&chain=base&asset=EURC&live=true', 5, (s: { live: boolean | null; rails: string[] }) => s.live === true && s.rails.includes('mpp')],
    ['q=weather', 1, (s: { name: string }) => s.name === 'Weather oracle'],
    ['q=SVC-0', 10, () => true],
    ['rail=lightning', 0, () => false],
    ['chain=nowhere', 0, () => false],
  ])('filters %s case-insensitively, counts reflecting the filter', async (query, total, matches) => {
    const { request } = createFixtureApp();
    const list = ServiceList.parse((await request(`/api/v1/services?${query}`)).json);
    expect(list.counts.total).toBe(total);
    expect(list.services).toHaveLength(total);
    expect(list.services.every((s) => (matches as (s: unknown) => boolean)(s))).toBe(true);
    expect(list.counts.live).toBe(list.services.filter((s) => s.live === true).length);
    expect(list.counts.dual_rail).toBe(list.services.filter((s) => s.rails.length >= 2).length);
  });
});

describe('GET /api/v1/services/{id}', () => {
  it('answers one service case-insensitively with its sources and newest-first probes', async () => {
    const { request, db } = createFixtureApp();
    for (let i = 1; i <= 25; i++) {
      recordProbe(db, { service_id: 'svc-03-test', probed_at: new Date(TEST_NOW.getTime() + i * 60_000).toISOString(), ok: i !== 25, status_code: i === 25 ? 500 : 402, method: 'GET', latency_ms: i, reason: i === 25 ? '500 Internal Server Error' : null, detected_rails: i === 25 ? [] : ['x402'] });
    }
    const { status, json } = await request('/api/v1/services/SVC-03-Test');
    expect(status).toBe(200);
    const detail = ServiceDetail.parse(json);
    expect(detail.id).toBe('svc-03-test');
    expect(detail.live).toBe(false);
    expect(detail.probes).toHaveLength(20);
    expect(detail.probes[0]).toMatchObject({ ok: false, status_code: 500, latency_ms: 25, reason: '500 Internal Server Error' });
    expect(detail.probes.map((p) => p.latency_ms)).toEqual(Array.from({ length: 20 }, (_, i) => 25 - i));
    expect(detail.source_urls).toEqual([{ source: 'bazaar', url: 'https://facilitator.test/discovery/resources' }]);
  });

  it('answers a looked-up service as the database holds it now, after a write of this process or of another', async () => {
    const { request, db } = createFixtureApp();
    const before = (await request('/api/v1/services/svc-01-test')).json;
    expect(before.live).toBeNull();
    recordProbe(db, { service_id: 'svc-01-test', probed_at: '2026-11-01T13:00:00.000Z', ok: true, status_code: 402, method: 'GET', latency_ms: 9, reason: null, detected_rails: ['x402'] });
    const after = (await request('/api/v1/services/svc-01-test')).json;
    expect(after).toMatchObject({ live: true, probes: [{ latency_ms: 9 }] });

    const dir = mkdtempSync(join(tmpdir(), 'psi-cache-'));
    try {
      const path = join(dir, 'index.db');
      const served = openDatabase(path);
      upsertServices(served, [makeService({ id: 'other-test' })], TEST_NOW.toISOString());
      const { request: requestFile } = createTestApp([], { db: served });
      expect((await requestFile('/api/v1/services/other-test')).json.live).toBeNull();
      const crawler = openDatabase(path);
      recordProbe(crawler, { service_id: 'other-test', probed_at: '2026-11-01T13:00:00.000Z', ok: false, status_code: 404, method: 'GET', latency_ms: 3, reason: 'answered 404', detected_rails: [] });
      crawler.close();
      expect((await requestFile('/api/v1/services/other-test')).json).toMatchObject({ live: false, probes: [{ reason: 'answered 404' }] });
      served.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 404 not_found for an unknown id', async () => {
    const { request } = createFixtureApp();
    const { status, json, headers } = await request('/api/v1/services/nope-test');
    expect(status).toBe(404);
    expect(ErrorResponse.parse(json).error.code).toBe('not_found');
    expect(json.error.endpoints).toBeUndefined();
    expect(headers.get('content-type')).toContain('application/json');
  });
});

describe('batch lookups', () => {
  it('POST answers found in the order requested, ignoring duplicates and case, with the missing ids', async () => {
    const { request } = createFixtureApp();
    const ids = ['svc-09-test', 'Nope', 'SVC-01-TEST', 'svc-09-test', ' nope ', 'Gone-Too'];
    const { status, json } = await request('/api/v1/services/batch', postJson({ ids }));
    expect(status).toBe(200);
    const result = BatchResult.parse(json);
    expect(result.requested).toBe(4);
    expect(result.found.map((s) => s.id)).toEqual(['svc-09-test', 'svc-01-test']);
    // Missing ids as the client wrote them (first spelling, trimmed), so it can match them to its own list.
    expect(result.missing).toEqual(['Nope', 'Gone-Too']);
  });

  it('GET answers the same as POST', async () => {
    const { request } = createFixtureApp();
    const viaGet = await request('/api/v1/services/batch?ids=svc-09-test,nope,SVC-01-TEST');
    const viaPost = await request('/api/v1/services/batch', postJson({ ids: ['svc-09-test', 'nope', 'SVC-01-TEST'] }));
    expect({ ...viaGet.json, generated_at: 0 }).toEqual({ ...viaPost.json, generated_at: 0 });
  });

  it('accepts 100 distinct ids, and 101 that repeat one', async () => {
    const { request } = createFixtureApp();
    const ids = Array.from({ length: 100 }, (_, i) => `id-${i}`);
    expect((await request('/api/v1/services/batch', postJson({ ids }))).json.requested).toBe(100);
    expect((await request('/api/v1/services/batch', postJson({ ids: [...ids, 'ID-0'] }))).status).toBe(200);
    expect((await request(`/api/v1/services/batch?ids=${ids.join(',')}`)).json.missing).toHaveLength(100);
  });

  it.each([
    ['not JSON', '{"ids": [', 'invalid_json'],
    ['a JSON array', '["a"]', 'invalid_json'],
    ['JSON null', 'null', 'invalid_json'],
    ['an empty body', '', 'invalid_json'],
    ['no ids', '{}', 'invalid_ids'],
    ['ids not an array', '{"ids": "a,b"}', 'invalid_ids'],
    ['ids not strings', '{"ids": ["a", 2]}', 'invalid_ids'],
    ['ids empty', '{"ids": []}', 'invalid_ids'],
    ['ids only blank', '{"ids": [" "]}', 'invalid_ids'],
    ['101 distinct ids', JSON.stringify({ ids: Array.from({ length: 101 }, (_, i) => `id-${i}`) }), 'invalid_ids'],
  ])('POST with %s answers 400 %s', async (_, body, code) => {
    const { request } = createFixtureApp();
    const { status, json } = await request('/api/v1/services/batch', postJson(body));
    expect(status).toBe(400);
    expect(ErrorResponse.parse(json).error.code).toBe(code);
  });

  it.each([
    ['', 'missing_query'],
    ['?ids=', 'invalid_ids'],
    ['?ids=,,', 'invalid_ids'],
    [`?ids=${Array.from({ length: 101 }, (_, i) => `id-${i}`).join(',')}`, 'invalid_ids'],
  ])('GET %s answers 400 %s', async (query, code) => {
    const { request } = createFixtureApp();
    const { status, json } = await request(`/api/v1/services/batch${query}`);
    expect(status).toBe(400);
    expect(json.error.code).toBe(code);
  });
});

describe('GET /api/v1/stats', () => {
  it('answers census counts for the whole index', async () => {
    const { request } = createFixtureApp();
    const stats = Stats.parse((await request('/api/v1/stats')).json);
    expect(stats).toMatchObject({ total: 60, live: 20, probed: 28, dual_rail: 15, rails: 2, last_probe_at: TEST_NOW.toISOString() });
  });
});

describe('errors and routing', () => {
  it('answers an unknown path with 404 not_found listing the paths that exist', async () => {
    const { request } = createFixtureApp();
    for (const path of ['/api/v1/nope', '/api/v2/services', '/api/v1/services/a/b', '/nothing.html']) {
      const { status, json, headers } = await request(path, { headers: { accept: 'text/html' } });
      expect(status).toBe(404);
      expect(headers.get('content-type')).toContain('application/json');
      expect(json.error.code).toBe('not_found');
      expect(json.error.endpoints).toEqual(expect.arrayContaining(['/api/v1/services', '/api/v1/services/{id}', '/api/v1/stats', '/api/v1/submit']));
    }
  });

  it('answers a wrong method with 405 in the Error shape and an Allow header', async () => {
    const { request } = createFixtureApp();
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/services', 'GET'],
      ['POST', '/api/v1/stats', 'GET'],
      ['GET', '/api/v1/submit', 'POST'],
      ['PUT', '/api/v1/services/svc-01-test', 'GET'],
      ['DELETE', '/api/v1/services/batch', 'POST'],
    ];
    for (const [method, path, allowed] of cases) {
      const { status, json, headers } = await request(path, { method });
      expect(status, `${method} ${path}`).toBe(405);
      expect(json.error.code).toBe('not_found');
      expect(json.error.endpoints).toContain('/api/v1/stats');
      expect(headers.get('allow')).toContain(allowed);
    }
  });

  it('answers a failure inside a handler with 500 internal_error and no stack trace', async () => {
    const { request, db } = createFixtureApp();
    db.close();
    const { status, json, text } = await request('/api/v1/services');
    expect(status).toBe(500);
    expect(json).toEqual({ error: { code: 'internal_error', message: expect.stringContaining('Retry') } });
    expect(text).not.toMatch(/at \w+ \(|\.ts:\d+|database connection/);
  });

  it('never answers HTML under /api/, whatever the request', async () => {
    const { request } = createFixtureApp();
    const paths = ['/api/v1/services/%3Cscript%3E', '/api/v1/services?q=<b>', '/api/', '/api/v1/services/%2e%2e%2fetc', '/api/v1/submissions/x',
      '/api/v1/services/%E0%A4%A', '/api/v1/submissions/%ZZ', '/api/v1/nope%E0'];
    for (const path of paths) {
      const { headers, text } = await request(path, { headers: { accept: 'text/html,application/xhtml+xml', 'user-agent': 'Mozilla/5.0' } });
      expect(headers.get('content-type'), path).toContain('application/json');
      expect(text.trimStart()[0]).toBe('{');
    }
  });
});

describe('requests at the edges', () => {
  it('answers a path with a malformed percent-escape in the Error shape, with the usual headers', async () => {
    const { request } = createFixtureApp({ config: { rateLimit: { limit: 300, windowSeconds: 60 } } });
    for (const path of ['/api/v1/services/%E0%A4%A', '/api/v1/purchases/%E0', '/%ZZ']) {
      const { status, json, headers } = await request(path);
      expect(status, path).toBe(400);
      expect(ErrorResponse.parse(json).error).toMatchObject({ code: 'not_found', message: expect.stringContaining('percent-escape') });
      expect(headers.get('access-control-allow-origin')).toBe('*');
      expect(headers.get('ratelimit-limit')).toBe('300');
    }
  });

  it('searches past control characters in q instead of failing', async () => {
    const { request } = createFixtureApp();
    const { status, json } = await request('/api/v1/services?q=weather%00%01');
    expect(status).toBe(200);
    expect(ServiceList.parse(json).services.map((s) => s.name)).toEqual(['Weather oracle']);
  });

  it('answers HEAD on every read with its headers and no body, and 404 for a path that only looks like one', async () => {
    const { request } = createFixtureApp();
    for (const path of ['/api/v1/stats', '/api/v1/services/svc-01-test', '/openapi.json']) {
      const get = await request(path);
      const head = await request(path, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
      expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    }
    expect((await request('/openapiXjson')).status).toBe(404);
  });

  it('answers a detail held in memory exactly as the one read from the database: UTF-8 text, ETag, HEAD length, 304', async () => {
    const { request } = createTestApp([makeService({ id: 'cafe-test', name: 'Café ☕ API', description: 'Größe, 大きさ' })]);
    const first = await request('/api/v1/services/cafe-test');
    const second = await request('/api/v1/services/cafe-test');
    expect(ServiceDetail.parse(second.json)).toMatchObject({ name: 'Café ☕ API', description: 'Größe, 大きさ' });
    expect(second.text).toBe(first.text);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    const head = await request('/api/v1/services/cafe-test', { method: 'HEAD' });
    expect([head.text, head.headers.get('content-length')]).toEqual(['', String(Buffer.byteLength(first.text))]);
    const unchanged = await request('/api/v1/services/cafe-test', { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect([unchanged.status, unchanged.text]).toEqual([304, '']);
  });
});

describe('headers', () => {
  it('advertises the rate limit and open CORS on success and on error', async () => {
    const { request } = createFixtureApp({ config: { rateLimit: { limit: 300, windowSeconds: 60 } } });
    for (const path of ['/api/v1/stats', '/api/v1/nope']) {
      const { headers } = await request(path);
      expect(headers.get('ratelimit-limit')).toBe('300');
      expect(headers.get('ratelimit-policy')).toBe('300;w=60');
      expect(headers.get('access-control-allow-origin')).toBe('*');
      expect(headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('answers 429 rate_limited with Retry-After once a client spends its tokens', async () => {
    const { request } = createFixtureApp({ config: { rateLimit: { limit: 3, windowSeconds: 60 } } });
    for (let i = 0; i < 3; i++) expect((await request('/api/v1/stats')).status).toBe(200);
    const limited = await request('/api/v1/stats');
    expect(limited.status).toBe(429);
    expect(ErrorResponse.parse(limited.json).error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBe(20);
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
  });

  it('marks reads cacheable with an ETag that answers 304, and writes no-store', async () => {
    const { request } = createFixtureApp();
    const first = await request('/api/v1/services?rail=mpp');
    expect(first.headers.get('cache-control')).toBe('public, max-age=60, s-maxage=300');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await request('/api/v1/services?rail=mpp', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const other = await request('/api/v1/services?rail=x402', { headers: { 'if-none-match': etag! } });
    expect(other.status).toBe(200);
    const write = await request('/api/v1/submit', postJson({ endpoint: 'https://new.example/pay' }));
    expect(write.headers.get('cache-control')).toBe('no-store');
    expect(write.headers.get('etag')).toBeNull();
  });

  it('answers a CORS preflight with the methods and headers allowed', async () => {
    const { request } = createFixtureApp();
    const { status, headers } = await request('/api/v1/submit', {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,idempotency-key' },
    });
    expect(status).toBe(204);
    expect(headers.get('access-control-allow-origin')).toBe('*');
    expect(headers.get('access-control-allow-methods')).toContain('POST');
    expect(headers.get('access-control-allow-headers')).toBe('content-type,idempotency-key');
    const other = await request('/api/v1/services', { method: 'OPTIONS', headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-request-id' } });
    expect(other.headers.get('access-control-allow-headers')).toBe('x-request-id');
    const plain = await request('/api/v1/stats', { method: 'OPTIONS' });
    expect(plain.status).toBe(204);
    expect(plain.headers.get('access-control-allow-headers')).toMatch(/Idempotency-Key/i);
  });

  it('answers a preflight whatever the client spent, without spending, and limits the OpenAPI document with or without its slash', async () => {
    const { request } = createTestApp([], { config: { rateLimit: { limit: 2, windowSeconds: 60 } } });
    expect((await request('/openapi.json/')).headers.get('ratelimit-remaining')).toBe('1');
    expect((await request('/openapi.json')).headers.get('ratelimit-remaining')).toBe('0');
    const preflight = await request('/api/v1/submit', { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST' } });
    expect([preflight.status, preflight.headers.get('ratelimit-limit'), preflight.headers.get('ratelimit-remaining')]).toEqual([204, '2', null]);
    expect((await request('/api/v1/stats')).status).toBe(429);
  });
});

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document, version 1.0.0, with every route and the shared schemas', async () => {
    const { request } = createFixtureApp();
    const { json } = await request('/openapi.json');
    expect(json.openapi).toBe('3.1.0');
    expect(json.info.version).toBe('1.0.0');
    expect(Object.keys(json.paths).sort()).toEqual([
      '/api/v1/services', '/api/v1/services/batch', '/api/v1/services/{id}', '/api/v1/endpoints', '/api/v1/endpoints/{id}', '/x402/discovery/resources', '/x402/discovery/search', '/api/v1/stats', '/api/v1/status', '/api/v1/submissions/{id}', '/api/v1/submit',
      '/api/v1/changes', '/api/v1/services/{id}/changes', '/api/v1/check', '/api/v1/facilitators',
      '/api/v1/webhooks', '/api/v1/webhooks/{id}', '/api/v1/webhooks/{id}/deliveries', '/api/v1/webhooks/{id}/test',
      // Owners (api/operations/claims.ts, owners.ts).
      '/api/v1/claims', '/api/v1/claims/{id}/verify', '/api/v1/services/{id}/delist', '/api/v1/services/{id}/relist', '/api/v1/services/{id}/recheck',
      // The purchase preview (api/purchase/operations.ts, api/operations/demo.ts): the catalog, purchases, and one path per demo service.
      '/api/v1/purchase', '/api/v1/purchase/services/{id}', '/api/v1/purchases', '/api/v1/purchases/{id}', '/api/v1/purchases/{id}/approval',
      '/api/v1/purchases/{id}/decline',
      '/api/demo/market', ...['audio-transcription', 'contract-screening', 'image-creation', 'job-search', 'product-search', 'specialist-research',
        'wallet-briefing', 'web-search', 'website-performance', 'whitepaper-extraction'].map((name) => `/api/demo/services/${name}`),
    ].sort());
    expect(Object.keys(json.components.schemas)).toEqual(expect.arrayContaining(['Service', 'ServiceDetail', 'ServiceList', 'Stats', 'BatchResult', 'SubmitResult', 'Submission', 'Error']));
    expect(json.components.schemas.Service.required).toEqual(expect.arrayContaining(['id', 'rails', 'live', 'price', 'sources']));
  });

  it('types the list parameters as the API reads them, requires the bodies, and lets responses gain fields', async () => {
    const { request } = createFixtureApp();
    const { json } = await request('/openapi.json');
    const params = Object.fromEntries(json.paths['/api/v1/services'].get.parameters.map((p: { name: string; schema: unknown }) => [p.name, p.schema]));
    expect(params).toMatchObject({ limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 }, offset: { type: 'integer', minimum: 0, default: 0 },
      live: { type: ['boolean', 'string', 'integer'] }, q: { type: 'string' } });
    expect(json.paths['/api/v1/submit'].post.requestBody.required).toBe(true);
    expect(json.paths['/api/v1/services/batch'].post.requestBody.required).toBe(true);
    expect(Object.keys(json.paths['/api/v1/services/batch'].post.responses)).toEqual(expect.arrayContaining(['400', '413', '429']));
    expect(Object.keys(json.paths['/api/v1/stats'].get.responses['429'].headers)).toEqual(['RateLimit-Limit', 'RateLimit-Policy', 'RateLimit-Remaining', 'Retry-After']);
    expect(json.components.schemas.SubmitRequest.properties.endpoint.format).toBe('uri');
    const strict = Object.entries(json.components.schemas).filter(([, schema]) => JSON.stringify(schema).includes('"additionalProperties":false'));
    expect(strict.map(([name]) => name)).toEqual([]);
  });

  it('describes each demo service with its parameters, the payment header and its 402 challenge, and no MCP tool', async () => {
    const { request } = createFixtureApp();
    const { json } = await request('/openapi.json');
    for (const spec of SPEC_SERVICES) {
      const operation = json.paths[spec.path].get;
      const params = operation.parameters.map((p: { in: string; name: string; required?: boolean; schema: { enum?: string[] } }) =>
        ({ in: p.in, name: p.name, required: p.required ?? false, values: p.schema.enum }));
      expect(params, spec.id).toEqual([
        ...spec.params.map((p) => ({ in: 'query', name: p.name, required: p.required, values: p.values.map(String) })),
        { in: 'header', name: 'payment-signature', required: false, values: undefined },
      ]);
      expect(Object.keys(operation.responses).sort(), spec.id).toEqual(['200', '400', '402', '429', '500']);
      expect(operation.responses['402'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PaymentRequired' });
      expect(operation['x-mcp-tool'], spec.id).toBeUndefined();
    }
  });
});
