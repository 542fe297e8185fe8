import { describe, expect, it } from 'vitest';
import { Change } from '../domain/schemas.ts';
import { detectChanges, type ServiceState } from './change-detect.ts';
import { listChanges } from './changes.ts';
import { recordProbes } from './probes.ts';
import { upsertServices } from './services.ts';
import { makeService, openTestDatabase } from './testing.ts';

const AT = '2026-11-25T12:00:00.000Z';
const state: ServiceState = {
  name: 'Weather', endpoint: 'https://w.test/pay', live: false, price: { usd: 0.01, display: '$0.01' },
  rails: ['x402'], chains: ['base'], assets: ['USDC'], facilitator: null, flags: [], endpoints: ['GET https://w.test/pay'],
};

function probe(serviceId: string, ok: boolean, at: string, usd = 0.01) {
  return {
    service_id: serviceId, probed_at: at, ok, status_code: ok ? 402 : 200, method: 'GET', latency_ms: 50,
    reason: ok ? null : '200 without a challenge', detected_rails: ok ? (['x402'] as const).slice() : [],
    terms: ok ? { rails: ['x402' as const], chains: ['base'], assets: ['USDC'], price: { usd, display: `$${usd}` } } : null,
  };
}

describe('change detection', () => {
  it('finds nothing between equal states, and only `listed` for a new service', () => {
    expect(detectChanges('w-test', state, { ...state, flags: [] }, AT)).toEqual([]);
    const listed = detectChanges('w-test', null, { ...state, live: true }, AT);
    expect(listed.map((c) => c.type)).toEqual(['listed']);
    expect(listed[0]!.summary).toBe('Weather was listed on x402 at https://w.test/pay.');
  });

  it('tells each kind of change in one sentence with the fields it touched', () => {
    const after: ServiceState = {
      ...state, live: true, price: { usd: 0.02, display: '$0.02' }, chains: ['base', 'tempo'], facilitator: 'https://f.test',
      endpoints: ['GET https://w.test/pay', 'POST https://w.test/more'], flags: ['extreme_price'],
    };
    const found = detectChanges('w-test', state, after, AT);
    expect(found.map((c) => c.type)).toEqual(['went_live', 'price_changed', 'terms_changed', 'endpoints_changed', 'flags_changed']);
    expect(found[1]).toMatchObject({ summary: 'Weather changed its price from $0.01 to $0.02.', before: { price: { usd: 0.01 } }, after: { price: { usd: 0.02 } } });
    expect(found[2]).toMatchObject({ before: { chains: ['base'], facilitator: null }, after: { chains: ['base', 'tempo'], facilitator: 'https://f.test' } });
    expect(Object.keys(found[2]!.after!)).toEqual(['chains', 'facilitator']);
    expect(found[3]!.summary).toBe('Weather now lists 2 endpoints (1 added).');
    expect(found[4]!.summary).toBe('Weather was flagged extreme_price.');
    for (const change of found) expect(change.summary).toMatch(/^[A-Z].*\.$/);
    expect(detectChanges('w-test', after, { ...after, price: { usd: 0.02, display: '$0.02 / call' } }, AT)).toEqual([]);
    expect(detectChanges('w-test', after, { ...after, live: false }, AT).map((c) => c.type)).toEqual(['went_dark']);
  });

  it('counts a first probe that finds nothing as no change', () => {
    expect(detectChanges('w-test', { ...state, live: null }, { ...state, live: false }, AT)).toEqual([]);
  });
});

describe('writers record their changes in the same transaction', () => {
  it('upsertServices and recordProbes write each change once, and a write that changes nothing writes none', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], AT);
    upsertServices(db, [makeService({ id: 'a-test' })], AT);
    recordProbes(db, [probe('a-test', true, '2026-11-25T12:01:00.000Z')]);
    recordProbes(db, [probe('a-test', true, '2026-11-25T12:02:00.000Z')]);
    recordProbes(db, [probe('a-test', true, '2026-11-25T12:03:00.000Z', 0.05)]);
    recordProbes(db, [probe('a-test', false, '2026-11-25T12:04:00.000Z')]);
    upsertServices(db, [makeService({ id: 'a-test', facilitator: 'https://f.test', price: { usd: 0.05, display: '$0.05' } })], AT);
    const { changes } = listChanges(db, { limit: 100 });
    expect(changes.map((c) => c.type)).toEqual(['listed', 'went_live', 'price_changed', 'went_dark', 'terms_changed']);
    expect(changes[1]!.at).toBe('2026-11-25T12:01:00.000Z');
    for (const change of changes) expect(Change.parse(change)).toEqual(change);
  });

  it('seeding the embedded default records no change', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], AT, { changes: false });
    expect(listChanges(db, { limit: 10 }).changes).toEqual([]);
  });

  it('a write that fails midway keeps neither its data nor its changes', () => {
    const db = openTestDatabase();
    upsertServices(db, [makeService({ id: 'a-test' })], AT);
    const broken = { ...probe('a-test', true, AT), probed_at: null as unknown as string };
    expect(() => recordProbes(db, [probe('a-test', true, '2026-11-25T12:01:00.000Z'), broken])).toThrow();
    expect(listChanges(db, { limit: 10 }).changes.map((c) => c.type)).toEqual(['listed']);
    expect(db.prepare('SELECT count(*) AS n FROM probes').get()).toEqual({ n: 0 });
  });
});
