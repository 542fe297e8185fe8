import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '../api/app.ts';
import { createTestApp, TEST_NOW } from '../api/testing.ts';
import { parseAllowList } from '../net/guard.ts';
import { createProbeAgent } from '../crawler/probe.ts';
import { recordChange } from '../data/changes.ts';
import { upsertServices } from '../data/services.ts';
import { pruneDeliveries } from '../data/webhooks.ts';
import { makeService } from '../data/testing.ts';
import { ErrorResponse, WebhookCreated, WebhookDeliveryList, Webhook as WebhookShape } from '../domain/schemas.ts';
import { startReceiver, verifies, type Receiver } from './testing.ts';
import { DISABLE_AFTER_MS, RETRY_DELAYS_MS, startDeliveryWorker, type DeliveryWorker } from './worker.ts';

/*
 * Webhooks end to end in one process: the real app on a socket, the delivery worker with the SSRF-guarded dispatcher,
 * and real receivers on loopback that verify every delivery with the standardwebhooks package.
 */

const ALLOW = parseAllowList('127.0.0.1');
let clock = new Date(TEST_NOW);
const test = createTestApp([], { config: { allowPrivateTargets: ALLOW, trustProxy: true }, now: () => clock, lookup: async (host) => (host === 'rebind.test' ? ['93.184.215.14'] : []) });
let origin = '';
let close = async () => {};
const receivers: Receiver[] = [];
const workers: DeliveryWorker[] = [];

beforeAll(async () => {
  upsertServices(test.db, [makeService({ id: 'a-test', rails: ['x402'] }), makeService({ id: 'b-test', rails: ['mpp'] })], TEST_NOW.toISOString());
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  close = () => server.close(true);
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await close();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

function worker(lookup?: (host: string) => string) {
  const agent = createProbeAgent({
    allow: ALLOW,
    ownOrigin: null,
    ...(lookup ? { lookup: (host: string, options: unknown, callback: (...args: unknown[]) => void) => callback(null, [{ address: lookup(host), family: 4 }], 4) } : {}),
  } as Parameters<typeof createProbeAgent>[0]);
  const started = startDeliveryWorker({ db: test.db, dispatcher: agent.dispatcher, allow: ALLOW, now: () => clock, pollMs: 20 });
  workers.push(started);
  return started;
}

async function api(path: string, init: RequestInit & { secret?: string } = {}) {
  const headers = { 'content-type': 'application/json', ...(init.secret ? { authorization: `Bearer ${init.secret}` } : {}) };
  const response = await fetch(`${origin}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

async function subscribe(body: Record<string, unknown>, client = '198.51.100.1'): Promise<WebhookCreated> {
  const { status, json } = await api('/api/v1/webhooks', { method: 'POST', body: JSON.stringify(body), headers: { 'x-forwarded-for': client } });
  expect(status, JSON.stringify(json)).toBe(201);
  return WebhookCreated.parse(json);
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const change = (serviceId: string, type: 'went_live' | 'went_dark' = 'went_live') =>
  recordChange(test.db, { at: clock.toISOString(), service_id: serviceId, type, summary: `${serviceId} ${type}.`, before: { live: type === 'went_dark' }, after: { live: type === 'went_live' } });

describe('subscriptions', () => {
  it('answers 201 with a whsec_ secret shown once, and every route of it wants that secret as bearer', async () => {
    const hook = await subscribe({ url: 'http://127.0.0.1:9/hook', types: ['went_live'], rail: 'x402' });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(hook).toMatchObject({ types: ['went_live'], services: [], rail: 'x402', status: 'active', disabled_reason: null });
    const paths = [`/api/v1/webhooks/${hook.id}`, `/api/v1/webhooks/${hook.id}/deliveries`];
    for (const [path, method] of [[paths[0], 'GET'], [paths[1], 'GET'], [`${paths[0]}/test`, 'POST'], [paths[0], 'DELETE']] as const) {
      for (const secret of [undefined, 'whsec_wrong', `${hook.secret}x`]) {
        const { status, json, headers } = await api(path!, { method, secret });
        expect(status, `${method} ${path} ${secret}`).toBe(401);
        expect(ErrorResponse.parse(json).error.code).toBe('unauthorized');
        expect(headers.get('www-authenticate')).toBe('Bearer');
      }
    }
    const read = await api(paths[0]!, { secret: hook.secret });
    expect(read.status).toBe(200);
    expect(read.headers.get('cache-control')).toBe('no-store');
    const { secret: _, ...shown } = hook;
    expect(WebhookShape.parse(read.json)).toEqual(shown);
    expect(JSON.stringify(read.json)).not.toContain(hook.secret);
    expect((await api(paths[0]!, { method: 'DELETE', secret: hook.secret })).json).toEqual({ ok: true, id: hook.id });
    expect((await api(paths[0]!, { secret: hook.secret })).status).toBe(401);
  });

  it('refuses a receiver that is not https, private, or not a URL, with 400 invalid_endpoint', async () => {
    for (const url of ['http://example.com/hook', 'https://10.0.0.7/hook', 'https://localhost/hook', 'ftp://example.com/x', 'not a url']) {
      const { status, json } = await api('/api/v1/webhooks', { method: 'POST', body: JSON.stringify({ url }) });
      expect(status, url).toBe(400);
      expect(ErrorResponse.parse(json).error.code, url).toBe('invalid_endpoint');
    }
    const bad = await api('/api/v1/webhooks', { method: 'POST', body: JSON.stringify({ url: 'http://127.0.0.1:9/', types: ['went_up'] }) });
    expect(bad.status).toBe(400);
    expect(ErrorResponse.parse(bad.json).error).toMatchObject({ code: 'invalid_json', message: expect.stringContaining('"types"') });
  });

  it('limits how many subscriptions one client creates an hour', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const response = await api('/api/v1/webhooks', { method: 'POST', body: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }), headers: { 'x-forwarded-for': '203.0.113.77' } });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(201));
    expect(statuses[10]).toBe(429);
  });
});

describe('deliveries', () => {
  it('delivers each matching change signed, verified by the receiver; a tampered one fails verification', async () => {
    const got = await receiver();
    const hook = await subscribe({ url: got.url, types: ['went_live', 'went_dark'], rail: 'x402' });
    got.secret = hook.secret;
    const wanted = [change('a-test'), change('a-test', 'went_dark')];
    change('b-test');
    recordChange(test.db, { at: clock.toISOString(), service_id: 'a-test', type: 'price_changed', summary: 'Price.', before: null, after: null });
    worker();
    await until(() => got.received.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(got.received.map((r) => JSON.parse(r.body).data.id)).toEqual(wanted.map((c) => c.id));
    for (const delivery of got.received) {
      expect(delivery.verified).toBe(true);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
      expect(JSON.parse(delivery.body)).toMatchObject({ type: expect.any(String), timestamp: expect.any(String), data: { service_id: 'a-test' } });
    }
    const first = got.received[0]!;
    expect(verifies(hook.secret, first.body.replace('went_live', 'went_dark'), first.headers)).toBe(false);
    expect(verifies(hook.secret, first.body, { ...first.headers, 'webhook-id': 'msg_other' })).toBe(false);
    expect(verifies('whsec_' + Buffer.alloc(24).toString('base64'), first.body, first.headers)).toBe(false);

    const log = WebhookDeliveryList.parse((await api(`/api/v1/webhooks/${hook.id}/deliveries`, { secret: hook.secret })).json);
    expect(log.deliveries.map((d) => [d.change_id, d.status, d.attempts])).toEqual([[wanted[1]!.id, 'delivered', 1], [wanted[0]!.id, 'delivered', 1]]);
  });

  it('prunes finished deliveries past their keep, never a pending one', () => {
    const counts = () => test.db.prepare(`SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status ORDER BY status`).all();
    const pending = (counts() as Array<{ status: string; n: number }>).find((row) => row.status === 'pending')?.n ?? 0;
    expect(pruneDeliveries(test.db, new Date(clock.getTime() - 1000).toISOString())).toBe(0);
    expect(pruneDeliveries(test.db, new Date(clock.getTime() + 1000).toISOString())).toBeGreaterThanOrEqual(2);
    expect(counts()).toEqual(pending > 0 ? [{ status: 'pending', n: pending }] : []);
  });

  it('sends a ping on POST …/test', async () => {
    const got = await receiver();
    const hook = await subscribe({ url: got.url, types: ['listed'] });
    got.secret = hook.secret;
    worker();
    const { status, json } = await api(`/api/v1/webhooks/${hook.id}/test`, { method: 'POST', secret: hook.secret });
    expect(status).toBe(202);
    expect(json).toMatchObject({ type: 'ping', status: 'pending', change_id: null });
    await until(() => got.received.length === 1);
    expect(got.received[0]!.verified).toBe(true);
    expect(JSON.parse(got.received[0]!.body)).toMatchObject({ type: 'ping', data: { webhook_id: hook.id } });
    expect(got.received[0]!.id).toBe(json.id);
  });

  it('retries a failing receiver with growing delays and disables it after 72 hours, with the reason', async () => {
    const got = await receiver();
    got.answer.status = 500;
    const hook = await subscribe({ url: got.url, services: ['b-test'] });
    got.secret = hook.secret;
    const started = clock.getTime();
    change('b-test');
    worker();
    // The worker runs on this test's clock, which jumps to each retry's time once the attempt before is recorded.
    const attemptsAt: number[] = [];
    for (let attempt = 1; attempt <= 12; attempt++) {
      await until(() => (deliveriesNow(hook)[0]?.attempts ?? 0) >= attempt);
      attemptsAt.push(clock.getTime());
      const delivery = deliveriesNow(hook)[0]!;
      if (delivery.status !== 'pending') break;
      clock = new Date(Date.parse(delivery.next_attempt_at!));
    }
    expect(got.received.length).toBe(attemptsAt.length);
    expect(attemptsAt.length).toBeGreaterThan(RETRY_DELAYS_MS.length);
    const gaps = attemptsAt.slice(1).map((at, i) => at - attemptsAt[i]!);
    expect(gaps.slice(0, RETRY_DELAYS_MS.length)).toEqual(RETRY_DELAYS_MS);
    const disabled = WebhookShape.parse(getWebhookNow(hook));
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: expect.stringContaining('answered 500') });
    expect(Date.parse(disabled.disabled_at!) - started).toBeGreaterThanOrEqual(DISABLE_AFTER_MS);
    expect(deliveriesNow(hook)[0]!.status).toBe('failed');
    const ping = await api(`/api/v1/webhooks/${hook.id}/test`, { method: 'POST', secret: hook.secret });
    expect(ping.status).toBe(409);
    expect(ErrorResponse.parse(ping.json).error).toMatchObject({ code: 'conflict', message: expect.stringContaining('72 hours') });
    clock = new Date(TEST_NOW);
  });

  it('sends nothing to a receiver whose name resolves to a private address at connect time', async () => {
    const got = await receiver();
    const port = new URL(got.url).port;
    const hook = await subscribe({ url: `https://rebind.test:${port}/hook`, services: ['a-test'] });
    change('a-test');
    worker(() => '10.0.0.9');
    await until(() => (deliveriesNow(hook)[0]?.attempts ?? 0) >= 1);
    expect(deliveriesNow(hook)[0]).toMatchObject({ status: 'pending', last_error: 'refused: private address', last_status: null });
    expect(got.received).toEqual([]);
  });
});

function getWebhookNow(created: WebhookCreated) {
  const row = test.db.prepare('SELECT disabled_at, disabled_reason FROM webhooks WHERE id = ?').get(created.id) as { disabled_at: string | null; disabled_reason: string | null };
  const { secret: _, ...shown } = created;
  return { ...shown, status: row.disabled_at ? 'disabled' : 'active', disabled_at: row.disabled_at, disabled_reason: row.disabled_reason };
}

function deliveriesNow(created: WebhookCreated) {
  return test.db.prepare('SELECT status, attempts, next_attempt_at, last_error, last_status FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC')
    .all(created.id) as Array<{ status: string; attempts: number; next_attempt_at: string | null; last_error: string | null; last_status: number | null }>;
}
