import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordProbes } from '../data/probes.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { ChangeList, ErrorResponse } from '../domain/schemas.ts';
import { serveApp } from './app.ts';
import { createTestApp, TEST_NOW } from './testing.ts';

/*
 * The change log over a real socket: written by the data layer's writers, read by cursor with type and service
 * filters; the new parameters are strict (400 missing_query naming the parameter), and /openapi.json lists both routes.
 */

const at = (minutes: number) => new Date(TEST_NOW.getTime() + minutes * 60_000).toISOString();
const probe = (id: string, ok: boolean, minutes: number) => ({
  service_id: id, probed_at: at(minutes), ok, status_code: ok ? 402 : 200, method: 'GET', latency_ms: 40,
  reason: ok ? null : 'no challenge', detected_rails: ok ? ['x402' as const] : [],
});

let origin = '';
let close = async () => {};

beforeAll(async () => {
  const test = createTestApp([]);
  upsertServices(test.db, [makeService({ id: 'a-test' }), makeService({ id: 'b-test' })], at(0));
  recordProbes(test.db, [probe('a-test', true, 1), probe('b-test', true, 1)]);
  recordProbes(test.db, [probe('a-test', false, 2)]);
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  close = () => server.close(true);
});
afterAll(() => close());

async function get(path: string) {
  const response = await fetch(`${origin}${path}`);
  return { status: response.status, json: await response.json() };
}

describe('GET /api/v1/changes', () => {
  it('answers the log oldest first and pages by cursor until next_after is null', async () => {
    const all = ChangeList.parse((await get('/api/v1/changes')).json);
    expect(all.changes.map((c) => `${c.service_id} ${c.type}`)).toEqual([
      'a-test listed', 'b-test listed', 'a-test went_live', 'b-test went_live', 'a-test went_dark',
    ]);
    expect(all.next_after).toBeNull();
    const seen: string[] = [];
    let after: string | null = '';
    while (after !== null) {
      const page = ChangeList.parse((await get(`/api/v1/changes?limit=2${after ? `&after=${after}` : ''}`)).json);
      seen.push(...page.changes.map((c) => c.id));
      after = page.next_after;
    }
    expect(seen).toEqual(all.changes.map((c) => c.id));
  });

  it('filters by a comma list of types and by service', async () => {
    const flips = ChangeList.parse((await get('/api/v1/changes?type=went_live,went_dark&service=A-TEST')).json);
    expect(flips.changes.map((c) => c.type)).toEqual(['went_live', 'went_dark']);
    expect(flips.changes[1]!.summary).toMatch(/went dark/);
    expect(ChangeList.parse((await get('/api/v1/changes?service=nobody')).json).changes).toEqual([]);
  });

  it.each([
    ['type=went_up', 'type', 'went_live'],
    ['after=abc', 'after', ''],
    ['limit=0', 'limit', '1 to 500'],
    ['limit=501', 'limit', '1 to 500'],
    ['limit=ten', 'limit', '1 to 500'],
  ])('refuses %s with 400 missing_query naming the parameter', async (query, name, allowed) => {
    const { status, json } = await get(`/api/v1/changes?${query}`);
    expect(status).toBe(400);
    const { error } = ErrorResponse.parse(json);
    expect(error.code).toBe('missing_query');
    expect(error.message).toContain(`"${name}"`);
    expect(error.message).toContain(allowed);
  });
});

describe('GET /api/v1/services/{id}/changes', () => {
  it('answers one service\'s changes, and 404 for an unknown service', async () => {
    const page = ChangeList.parse((await get('/api/v1/services/B-test/changes')).json);
    expect(page.changes.map((c) => c.type)).toEqual(['listed', 'went_live']);
    const missing = await get('/api/v1/services/nobody/changes');
    expect(missing.status).toBe(404);
    expect(ErrorResponse.parse(missing.json).error.code).toBe('not_found');
  });

  it('is described in /openapi.json', async () => {
    const { json } = await get('/openapi.json');
    expect(Object.keys(json.paths)).toEqual(expect.arrayContaining(['/api/v1/changes', '/api/v1/services/{id}/changes']));
  });
});
