import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { AllowList } from '../crawler/targets.ts';
import type { DB } from '../data/db.ts';
import {
  fanOutChanges, listDueDeliveries, listDueHosts, pruneDeliveries, recordAttempts, type Attempt, type DueDelivery,
} from '../data/webhooks.ts';
import { sendMessage } from './send.ts';

/** Delays before each retry (DESIGN.md): about 10 s, 1 min, 10 min, 1 h, 6 h, then every 24 h. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000];
/** A subscription whose deliveries have failed this long, with no success between, is disabled. */
export const DISABLE_AFTER_MS = 72 * 3_600_000;
/** Receivers served at once; each receiver host gets one delivery at a time. */
export const DELIVERY_CONCURRENCY = 16;
/** How often the worker looks for new changes and due retries when idle. */
export const DELIVERY_POLL_MS = 500;
/** Changes fanned out per transaction, and deliveries a receiver's lane takes from the queue at a time. */
const FAN_OUT_BATCH = 500;
/** Finished deliveries are kept this long in the log (as the changes they carry), pruned once an hour. */
const KEEP_DELIVERIES_MS = 90 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
const LANE_BATCH = 50;

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
 * webhooks.ts fanOutChanges) and starts a lane for each receiver host with deliveries due, up to `concurrency`
 * lanes. A lane sends its host's deliveries one at a time and records each batch's attempts in one transaction, so
 * a delivery leaves the queue only once its 2xx is recorded: at least once, whatever stops the process.
 * @example const worker = startDeliveryWorker({ db, dispatcher: createProbeAgent({ allow }).dispatcher, allow });
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const now = options.now ?? (() => new Date());
  const concurrency = options.concurrency ?? DELIVERY_CONCURRENCY;
  const lanes = new Map<string, Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let polling = false;
  let prunedAt = -Infinity;

  const attempt = async (delivery: DueDelivery): Promise<Attempt> => {
    const result = await sendMessage(delivery, { dispatcher: options.dispatcher, allow: options.allow });
    const at = now();
    if (result.ok) return { delivery, at: at.toISOString(), ...result, next_attempt_at: null, disable_reason: null };
    const delay = RETRY_DELAYS_MS[Math.min(delivery.attempts, RETRY_DELAYS_MS.length - 1)]!;
    const failingSince = delivery.failing_since ? Date.parse(delivery.failing_since) : at.getTime();
    const disable = at.getTime() - failingSince >= DISABLE_AFTER_MS
      ? `Deliveries failed for 72 hours; the last: ${result.error}.`
      : null;
    return { delivery, at: at.toISOString(), ...result, next_attempt_at: new Date(at.getTime() + delay).toISOString(), disable_reason: disable };
  };

  const runLane = async (host: string) => {
    while (!stopped) {
      const due = listDueDeliveries(options.db, host, now().toISOString(), LANE_BATCH);
      if (due.length === 0) return;
      const attempts: Attempt[] = [];
      for (const delivery of due) {
        const done = await attempt(delivery);
        attempts.push(done);
        // A disabled subscription's other deliveries in this batch are given up with it.
        if (done.disable_reason !== null || stopped) break;
      }
      recordAttempts(options.db, attempts);
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
      for (const host of listDueHosts(options.db, now().toISOString())) {
        if (stopped || lanes.size >= concurrency) break;
        if (lanes.has(host)) continue;
        const lane = runLane(host)
          .catch((error) => options.log?.(`deliveries to ${host} stopped: ${error instanceof Error ? error.message : error}`))
          .finally(() => {
            lanes.delete(host);
            wake();
          });
        lanes.set(host, lane);
      }
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
      await Promise.all(lanes.values());
    },
  };
}
