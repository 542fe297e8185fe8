import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsResolver } from '../net/dns.ts';
import { startTestDnsServer } from '../net/testing/dns-server.ts';
import { SubmitResult } from '../domain/schemas.ts';
import { SUBMIT_LOOKUP_TIMEOUT_MS, SUBMIT_LOOKUPS_PER_CLIENT } from './lookup-limits.ts';
import { createTestApp, postJson } from './testing.ts';

/*
 * Submitted hosts are resolved through a real DNS server (dns2 on loopback) that never answers names under
 * `silent.test`: a flood of names that cannot be resolved must not hold other submissions, repeats are answered
 * before any lookup, and every lookup has a time limit.
 */

let dns: Awaited<ReturnType<typeof startTestDnsServer>>;
beforeAll(async () => {
  dns = await startTestDnsServer({
    a: new Map([['private.resolves.test', ['127.0.0.1']], ['public.resolves.test', ['93.184.215.14']]]),
    silent: (name) => name.endsWith('silent.test'),
  });
});
afterAll(() => dns.close());

function setup() {
  // The resolver a deployment would have: it waits up to 5 s for an answer, longer than a submit should.
  const resolver = createDnsResolver({ servers: [dns.address], timeoutMs: 5_000 });
  return createTestApp([], { lookup: resolver.lookupAll, config: { trustProxy: true } });
}

const from = (client: string, body: unknown, headers: Record<string, string> = {}) => postJson(body, { 'x-forwarded-for': client, ...headers });
const silentNames = () => new Set(dns.queries.filter((name) => name.endsWith('silent.test')));

describe('submitted hosts are looked up with a time limit and caps', () => {
  it('a flood of 250 names that never resolve is queued in time, asks the DNS server a few of them, and holds no one else', async () => {
    const { request } = setup();
    const asked = silentNames().size;
    const started = performance.now();
    const flood = Array.from({ length: 250 }, (_, i) => request('/api/v1/submit', from('198.51.100.7', { endpoint: `https://n${i}.flood.silent.test/pay` })));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const otherStarted = performance.now();
    const other = await request('/api/v1/submit', from('198.51.100.8', { endpoint: 'https://private.resolves.test/pay' }));
    const otherMs = performance.now() - otherStarted;
    const answers = await Promise.all(flood);
    const floodMs = performance.now() - started;

    // The other client's name was resolved (to a private address, so refused), without waiting for the flood.
    expect(other.status).toBe(400);
    expect(other.json.error.code).toBe('invalid_endpoint');
    expect(otherMs).toBeLessThan(1_000);
    expect(answers.every((answer) => answer.status === 200 && SubmitResult.parse(answer.json).status === 'queued')).toBe(true);
    expect(floodMs).toBeLessThan(SUBMIT_LOOKUP_TIMEOUT_MS + 1_500);
    expect(silentNames().size - asked).toBeLessThanOrEqual(SUBMIT_LOOKUPS_PER_CLIENT);
  });

  it('answers a repeated endpoint and a repeated Idempotency-Key before any lookup', async () => {
    const { request } = setup();
    const first = await request('/api/v1/submit', from('198.51.100.9', { endpoint: 'https://repeat.silent.test/pay' }, { 'idempotency-key': 'repeat-1' }));
    expect(first.json.deduplicated).toBe(false);
    const queried = dns.queries.length;
    const started = performance.now();
    const sameEndpoint = await request('/api/v1/submit', from('198.51.100.10', { endpoint: 'https://REPEAT.silent.test/pay/' }));
    const sameKey = await request('/api/v1/submit', from('198.51.100.11', { endpoint: 'https://other.silent.test/pay' }, { 'idempotency-key': 'repeat-1' }));
    expect(performance.now() - started).toBeLessThan(500);
    expect(dns.queries.length).toBe(queried);
    expect(sameEndpoint.json).toMatchObject({ deduplicated: true, id: first.json.id });
    expect(sameEndpoint.json.message).toBeUndefined();
    expect(sameKey.json).toMatchObject({ deduplicated: true, id: first.json.id, submission: { endpoint: 'https://repeat.silent.test/pay' } });
    expect(sameKey.json.message).toContain('This Idempotency-Key was first used for https://repeat.silent.test/pay');
    expect(sameKey.json.message).toContain('https://other.silent.test/pay was not submitted');
  });

  it('still resolves a name that answers, and refuses one that resolves to a private address', async () => {
    const { request } = setup();
    expect((await request('/api/v1/submit', from('198.51.100.12', { endpoint: 'https://public.resolves.test/pay' }))).json.status).toBe('queued');
    expect((await request('/api/v1/submit', from('198.51.100.12', { endpoint: 'https://private.resolves.test/x' }))).status).toBe(400);
  });
});
