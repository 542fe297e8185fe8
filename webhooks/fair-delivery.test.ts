import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApp } from '../api/app.ts';
import { createTestApp } from '../api/testing.ts';
import { createProbeAgent } from '../crawler/probe.ts';
import { parseAllowList } from '../net/guard.ts';
import { recordChange } from '../data/changes.ts';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { WebhookCreated, WebhookDeliveryList } from '../domain/schemas.ts';
import { DELIVERY_TIMEOUT_MS } from './send.ts';
import { startReceiver, type Receiver } from './testing.ts';
import { RETRY_DELAYS_MS, startDeliveryWorker } from './worker.ts';

/*
 * Fair delivery on the real clock: the real app on a socket, the delivery worker with the SSRF-guarded dispatcher,
 * 16 receivers that accept a delivery and never answer, and one that answers at once. The answering one gets every
 * change within one attempt's limit of it becoming due; each hanging one costs one attempt, then rests its backoff
 * with all its deliveries.
 */

const ALLOW = parseAllowList('127.0.0.1');
const HANGING = 16;
const MARGIN_MS = 2_000;
const test = createTestApp([], { config: { allowPrivateTargets: ALLOW, trustProxy: true } });
let origin = '';
let close = async () => {};
const receivers: Receiver[] = [];

beforeAll(async () => {
  upsertServices(test.db, [makeService({ id: 'a-test' })], new Date().toISOString());
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  origin = new URL(server.url!).origin;
  close = () => server.close(true);
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await close();
});

async function receiver(delayMs = 0): Promise<Receiver> {
  const started = await startReceiver();
  started.answer.delayMs = delayMs;
  receivers.push(started);
  return started;
}

async function subscribe(url: string, client: string): Promise<WebhookCreated> {
  const response = await fetch(`${origin}/api/v1/webhooks`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client }, body: JSON.stringify({ url }),
  });
  const json = await response.json();
  expect(response.status, JSON.stringify(json)).toBe(201);
  return WebhookCreated.parse(json);
}

async function deliveries(hook: WebhookCreated): Promise<WebhookDeliveryList['deliveries']> {
  const response = await fetch(`${origin}/api/v1/webhooks/${hook.id}/deliveries`, { headers: { authorization: `Bearer ${hook.secret}` } });
  return WebhookDeliveryList.parse(await response.json()).deliveries;
}

/** Waits until `check` holds, and answers how long that took (ms). */
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

const changes = (count: number) => Array.from({ length: count }, (_, i) => recordChange(test.db, {
  at: new Date().toISOString(), service_id: 'a-test', type: i % 2 ? 'went_dark' : 'went_live', summary: `Flip ${i}.`,
}).id);

describe('fair delivery beside receivers that never answer', () => {
  it('delivers to the answering receiver within one attempt\'s limit while 16 hang, and rests each hanging host', async () => {
    // The answering receiver subscribes last, so its deliveries come last among each change's.
    const hanging = await Promise.all(Array.from({ length: HANGING }, () => receiver(10 * DELIVERY_TIMEOUT_MS)));
    const healthy = await receiver();
    const hangingHooks: WebhookCreated[] = [];
    for (const [i, hung] of hanging.entries()) hangingHooks.push(await subscribe(hung.url, `198.51.100.${i + 1}`));
    const healthyHook = await subscribe(healthy.url, '198.51.100.200');
    healthy.secret = healthyHook.secret;
    const delivered = () => new Set(healthy.received.map((got) => JSON.parse(got.body).data.id));

    const first = changes(3);
    const agent = createProbeAgent({ allow: ALLOW });
    const worker = startDeliveryWorker({ db: test.db, dispatcher: agent.dispatcher, allow: ALLOW });
    try {
      expect(await until(() => first.every((id) => delivered().has(id)), DELIVERY_TIMEOUT_MS + MARGIN_MS)).toBeLessThan(DELIVERY_TIMEOUT_MS + MARGIN_MS);
      await until(() => hanging.every((hung) => hung.received.length === 1), MARGIN_MS);

      // Changes made while every hanging receiver holds an attempt open reach the answering one as soon.
      const second = changes(2);
      expect(await until(() => second.every((id) => delivered().has(id)), DELIVERY_TIMEOUT_MS + MARGIN_MS)).toBeLessThan(DELIVERY_TIMEOUT_MS + MARGIN_MS);
      expect(healthy.received.every((got) => got.verified)).toBe(true);
      const healthyLog = await deliveries(healthyHook);
      expect(healthyLog.map((d) => [d.status, d.attempts])).toEqual(Array(5).fill(['delivered', 1]));

      // Each hanging host: one attempt, recorded as failed when it timed out, its backoff on all its deliveries.
      await until(async () => (await Promise.all(hangingHooks.map(deliveries))).every((log) => log.some((d) => d.attempts === 1)), DELIVERY_TIMEOUT_MS + MARGIN_MS);
      for (const [i, hook] of hangingHooks.entries()) {
        const log = await deliveries(hook);
        expect(log).toHaveLength(5);
        const tried = log.filter((d) => d.attempts > 0);
        expect(tried, hook.url).toHaveLength(1);
        const [attempt] = tried;
        expect(attempt).toMatchObject({ status: 'pending', last_status: null, last_error: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` });
        const retryAt = Date.parse(attempt!.next_attempt_at!);
        expect(retryAt - Date.parse(attempt!.last_attempt_at!)).toBe(RETRY_DELAYS_MS[0]);
        for (const waiting of log.filter((d) => d.attempts === 0)) expect(Date.parse(waiting.next_attempt_at!)).toBeGreaterThanOrEqual(retryAt);
        expect(hanging[i]!.received).toHaveLength(1);
      }
    } finally {
      await worker.stop();
      await agent.dispatcher.destroy();
    }
  }, 60_000);
});
