import PQueue from 'p-queue';
import { listProbeTargets, type ProbeTarget } from '../data/crawl.ts';
import type { DB } from '../data/db.ts';
import { recordProbes } from '../data/probes.ts';
import type { ProbeInput } from '../data/types.ts';
import { PROBE_TIMEOUT_MS, probeEndpoint, type ProbeAgent } from './probe.ts';

/**
 * Probes in flight at once, across hosts (one at a time per host): enough for a pass over 100,000 services to end
 * within the 5-minute probe interval (docs/decisions.md, "Freshness at scale"); one socket each, far below the
 * usual limit of 1,024 open files.
 */
export const DEFAULT_PROBE_CONCURRENCY = 128;

export interface ProbePassOptions {
  agent: ProbeAgent;
  concurrency?: number;
  limit?: number;
  timeoutMs?: number;
  now: () => Date;
  onProbe?: (done: number, total: number) => void;
}

export interface ProbePassSummary {
  probed: number;
  live: number;
  /** Services not live, by the reason of their probe. */
  not_live: Record<string, number>;
}

/**
 * Probes wait at most this long, or until this many are waiting, to be recorded together (`createProbeRecorder`):
 * small transactions, since the API's readers measured slower beside larger ones (BENCHMARKS.md).
 */
const RECORD_EVERY_MS = 25;
const RECORD_BATCH = 16;

/**
 * Probes every main endpoint once, recording probes within RECORD_EVERY_MS of landing (a pass killed half-way keeps
 * what it did).
 * At most `concurrency` probes run at once and never two to one host (name and port).
 * @example await probePass(db, { agent, now: () => new Date() });
 */
export async function probePass(db: DB, options: ProbePassOptions): Promise<ProbePassSummary> {
  const targets = listProbeTargets(db).slice(0, options.limit ?? Infinity);
  const summary: ProbePassSummary = { probed: 0, live: 0, not_live: {} };
  const queue = new PQueue({ concurrency: options.concurrency ?? DEFAULT_PROBE_CONCURRENCY });
  const recorder = createProbeRecorder(db);
  let done = 0;
  const probeChain = async (hostTargets: ProbeTarget[]) => {
    for (const target of hostTargets) {
      const outcome = await probeSafely(target, options);
      recorder.add({ service_id: target.service_id, ...outcome });
      summary.probed += 1;
      if (outcome.ok) summary.live += 1;
      else summary.not_live[outcome.reason ?? 'unknown'] = (summary.not_live[outcome.reason ?? 'unknown'] ?? 0) + 1;
      options.onProbe?.(++done, targets.length);
    }
  };
  await queueAsSlotsFree(queue, toStartOrder(groupByHost(targets), options.timeoutMs ?? PROBE_TIMEOUT_MS), probeChain);
  recorder.finish();
  return summary;
}

/**
 * Runs `task` on every item through `queue`, adding items only while fewer than `queue.concurrency` wait: queued all
 * at once, 100,000 hosts' tasks held over 100 MB of heap, past the crawl child's cap. Throws the first task's error
 * once the tasks started have ended.
 */
async function queueAsSlotsFree<T>(queue: PQueue, items: T[], task: (item: T) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const item of items) {
    await queue.onSizeLessThan(queue.concurrency);
    if (failure) break;
    queue.add(() => task(item)).catch((error: unknown) => (failure ??= { error }));
  }
  await queue.onIdle();
  if (failure) throw failure.error;
}

/** `probeEndpoint`, or a failed probe saying so when it throws: one service's fault never stops the pass. */
async function probeSafely(target: ProbeTarget, options: ProbePassOptions): Promise<Omit<ProbeInput, 'service_id'>> {
  try {
    return await probeEndpoint({ url: target.url, method: target.method, body: target.body }, { agent: options.agent, timeoutMs: options.timeoutMs, now: options.now });
  } catch (error) {
    const reason = `answer could not be read (${error instanceof Error ? error.message : String(error)})`.slice(0, 200);
    return { probed_at: (options.now?.() ?? new Date()).toISOString(), ok: false, status_code: null, method: null, latency_ms: null, reason, detected_rails: [] };
  }
}

/**
 * Records probes in batches, one transaction each: a commit costs more than the few rows of a probe, and each
 * commit makes the API's connection drop its page cache. `finish` records the rest and throws what a timed
 * batch threw.
 */
function createProbeRecorder(db: DB): { add(probe: ProbeInput): void; finish(): void } {
  let pending: ProbeInput[] = [];
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length > 0) recordProbes(db, batch);
  };
  const flushOnTimer = () => {
    try {
      flush();
    } catch (error) {
      failure ??= error;
    }
  };
  return {
    add(probe) {
      pending.push(probe);
      if (pending.length >= RECORD_BATCH) flush();
      else timer ??= setTimeout(flushOnTimer, RECORD_EVERY_MS);
    },
    finish() {
      flush();
      if (failure !== undefined) throw failure;
    },
  };
}

/** A host chain expected to take at least this long starts at the head of the pass. */
const LONG_CHAIN_MS = 1_000;

/**
 * The hosts' probe chains in the order they start: those expected to take a second or more first, longest first
 * (from each service's last probe; one never probed counts as the time limit), so slow and dead hosts run beside
 * the many fast ones instead of starting last and holding the pass open; then the rest in the order listed. Sorting
 * those too would leave the fastest hosts for the end, where 64 slots turning over every few milliseconds ask for
 * more CPU than the machine has and every probe's latency grows.
 */
function toStartOrder(groups: Map<string, ProbeTarget[]>, timeoutMs: number): ProbeTarget[][] {
  const expectedMs = (chain: ProbeTarget[]) => chain.reduce((sum, target) => sum + (target.last_latency_ms ?? timeoutMs), 0);
  // Short chains all rank 0, and the sort is stable, so they keep the order listed.
  const rank = (chain: ProbeTarget[]) => {
    const ms = expectedMs(chain);
    return ms >= LONG_CHAIN_MS ? ms : 0;
  };
  return [...groups.values()]
    .map((chain) => ({ chain, rank: rank(chain) }))
    .sort((a, b) => b.rank - a.rank)
    .map(({ chain }) => chain);
}

function groupByHost(targets: ProbeTarget[]): Map<string, ProbeTarget[]> {
  const groups = new Map<string, ProbeTarget[]>();
  for (const target of targets) {
    const host = new URL(target.url).host;
    groups.set(host, [...(groups.get(host) ?? []), target]);
  }
  return groups;
}
