import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { AllowList } from '../net/guard.ts';
import type { DB } from '../data/db.ts';
import {
  fanOutChanges, listDueDeliveries, pruneDeliveries, recordAttempt, type Attempt, type DueDelivery,
} from '../data/webhooks.ts';
import { sendMessage } from './send.ts';

/** Delays before each retry (DESIGN.md): about 10 s, 1 min, 10 min, 1 h, 6 h, then every 24 h. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000];
/** A subscription whose deliveries have failed this long, with no success between, is disabled. */
export const DISABLE_AFTER_MS = 72 * 3_600_000;
/**
 * Attempts in flight at once, one per receiver host. Hosts whose last attempt timed out may hold at most half of them,
 * so however many receivers hang, the others always have slots: a receiver that starts hanging costs the others at
 * most one attempt's time limit, before it is known to hang.
 */
export const DELIVERY_CONCURRENCY = 32;
/** How often the worker looks for new changes and due retries when idle. */
export const DELIVERY_POLL_MS = 500;
/** Changes fanned out per transaction. */
const FAN_OUT_BATCH = 500;
/** Finished deliveries are kept this long in the log (as the changes they carry), pruned once an hour. */
const KEEP_DELIVERIES_MS = 90 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface DeliveryWorkerOptions {
  db: DB;
  /** Connections through the SSRF guard (crawler/probe.ts createProbeAgent, no own origin). */
  dispatcher: Dispatcher;
  allow: AllowList;
  now?: () => Date;
  concurrency?: number;
  pollMs?: number;
  log?: (line: string) => void;
}

export interface DeliveryWorker {
  /** Looks for work now rather than at the next poll. */
  wake(): void;
  /** Stops taking work and waits for the deliveries in flight to be recorded. */
  stop(): Promise<void>;
}

/**
 * Delivers the change log to webhook subscriptions: each poll turns new changes into queued deliveries (data/
 * webhooks.ts fanOutChanges) and starts the due deliveries oldest first across receiver hosts, one at a time per
 * host, up to `concurrency` at once. Each attempt is recorded as soon as it ends, so a delivery leaves the queue only
 * once its 2xx is recorded (at least once, whatever stops the process) and no receiver waits for another's. A host
 * that timed out waits its backoff with all its deliveries, so one hanging host holds one slot, not one per delivery.
 * @example const worker = startDeliveryWorker({ db, dispatcher: createProbeAgent({ allow }).dispatcher, allow });
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const now = options.now ?? (() => new Date());
  const concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
  const inFlight = new Map<string, Promise<void>>();
  /** Hosts whose last attempt timed out, each with when its backoff ends (ms): kept out of half the slots. */
  const hanging = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let polling = false;
  let prunedAt = -Infinity;

  const attempt = async (delivery: DueDelivery): Promise<Attempt> => {
    const result = await sendMessage(delivery, { dispatcher: options.dispatcher, allow: options.allow });
    const at = now();
    const ended = { delivery, at: at.toISOString(), ok: result.ok, status: result.status, error: result.error, holds_host: result.timedOut };
    if (result.ok) return { ...ended, next_attempt_at: null, disable_reason: null };
    const delay = RETRY_DELAYS_MS[Math.min(delivery.attempts, RETRY_DELAYS_MS.length - 1)]!;
    const failingSince = delivery.failing_since ? Date.parse(delivery.failing_since) : at.getTime();
    const disable = at.getTime() - failingSince >= DISABLE_AFTER_MS
      ? `Deliveries failed for 72 hours; the last: ${result.error}.`
      : null;
    return { ...ended, next_attempt_at: new Date(at.getTime() + delay).toISOString(), disable_reason: disable };
  };

  const send = async (delivery: DueDelivery) => {
    const done = await attempt(delivery);
    recordAttempt(options.db, done);
    if (done.holds_host) hanging.set(delivery.host, Date.parse(done.next_attempt_at!));
    else hanging.delete(delivery.host);
  };

  /** Starts the due deliveries that have a slot: oldest first, one per host, hanging hosts in half the slots. */
  const startDue = () => {
    const at = now();
    let free = concurrency - inFlight.size;
    let hangingFree = Math.max(1, Math.floor(concurrency / 2)) - [...inFlight.keys()].filter((host) => hanging.has(host)).length;
    if (free <= 0) return;
    for (const delivery of listDueDeliveries(options.db, at.toISOString(), concurrency + inFlight.size + hanging.size)) {
      const { host } = delivery;
      const resting = hanging.get(host);
      if (inFlight.has(host) || (resting !== undefined && (resting > at.getTime() || hangingFree <= 0))) continue;
      if (resting !== undefined) hangingFree -= 1;
      const sending = send(delivery)
        .catch((error) => options.log?.(`delivery to ${host} not recorded: ${error instanceof Error ? error.message : error}`))
        .finally(() => {
          inFlight.delete(host);
          wake();
        });
      inFlight.set(host, sending);
      if ((free -= 1) === 0) return;
    }
  };

  const poll = async () => {
    timer = null;
    if (stopped || polling) return;
    polling = true;
    try {
      if (now().getTime() - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = now().getTime();
        pruneDeliveries(options.db, new Date(prunedAt - KEEP_DELIVERIES_MS).toISOString());
      }
      while (!stopped && fanOutChanges(options.db, now().toISOString(), FAN_OUT_BATCH) === FAN_OUT_BATCH) await yieldToEvents();
      if (!stopped) startDue();
    } catch (error) {
      options.log?.(`webhook poll failed: ${error instanceof Error ? error.message : error}`);
    } finally {
      polling = false;
      if (!stopped) timer ??= setTimeout(poll, options.pollMs ?? DELIVERY_POLL_MS);
    }
  };

  const wake = () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(poll, 0);
  };

  wake();
  return {
    wake,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.all(inFlight.values());
    },
  };
}
