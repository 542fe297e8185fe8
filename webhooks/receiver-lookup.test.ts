import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '../api/app.ts';
import { SUBMIT_LOOKUP_TIMEOUT_MS } from '../api/lookup-limits.ts';
import { createTestApp } from '../api/testing.ts';
import { startTestDnsServer } from '../net/testing/dns-server.ts';
import { ErrorResponse, WebhookCreated } from '../domain/schemas.ts';

/*
 * A webhook's receiver host is resolved at creation by the app's resolver (DNS_SERVERS, here a real DNS server on
 * loopback that never answers names under `silent.test`), within a time limit; the SSRF guard decides on the
 * addresses it finds, and a host that cannot be resolved in time is accepted, as a submission is.
 */

let dns: Awaited<ReturnType<typeof startTestDnsServer>>;
let origin = '';
let close = async () => {};

beforeAll(async () => {
  dns = await startTestDnsServer({
    a: new Map([['private.resolves.test', ['10.0.0.7']], ['public.resolves.test', ['93.184.215.14']]]),
    silent: (name) => name.endsWith('silent.test'),
  });
  const test = createTestApp([], { lookup: undefined, config: { dnsServers: [dns.address], trustProxy: true } });
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  close = () => server.close(true);
});
afterAll(async () => {
  await close();
  dns.close();
});

async function create(url: string, client: string) {
  const started = performance.now();
  const response = await fetch(`${origin}/api/v1/webhooks`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client }, body: JSON.stringify({ url }),
  });
  return { status: response.status, json: await response.json(), ms: performance.now() - started };
}

describe('a webhook receiver\'s host lookup at creation', () => {
  it('asks DNS_SERVERS, and accepts a host the server never answers for within the time limit', async () => {
    const { status, json, ms } = await create('https://hooks.silent.test/psi', '198.51.100.21');
    expect(status, JSON.stringify(json)).toBe(201);
    expect(WebhookCreated.parse(json).url).toBe('https://hooks.silent.test/psi');
    expect(ms).toBeLessThan(SUBMIT_LOOKUP_TIMEOUT_MS + 1_500);
    expect(ms).toBeLessThan(5_000);
    expect(dns.queries).toContain('hooks.silent.test');
  });

  it('refuses a host DNS_SERVERS resolves to a private address, and accepts one it resolves to a public one', async () => {
    const refused = await create('https://private.resolves.test/psi', '198.51.100.22');
    expect(refused.status).toBe(400);
    expect(ErrorResponse.parse(refused.json).error).toMatchObject({ code: 'invalid_endpoint', message: expect.stringContaining('private address') });
    const accepted = await create('https://public.resolves.test/psi', '198.51.100.22');
    expect(accepted.status).toBe(201);
  });
});
