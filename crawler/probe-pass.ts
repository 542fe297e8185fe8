import PQueue from 'p-queue';
import { listProbeTargets, type ProbeTarget } from '../data/crawl.ts';
import type { DB } from '../data/db.ts';
import { recordProbe } from '../data/probes.ts';
import { PROBE_TIMEOUT_MS, probeEndpoint, type ProbeAgent } from './probe.ts';

/** Probes in flight at once, across hosts (one at a time per host). */
export const DEFAULT_PROBE_CONCURRENCY = 64;

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
 * Probes every main endpoint once, recording each probe as it lands (a pass killed half-way keeps what it did).
 * At most `concurrency` probes run at once and never two to one host (name and port).
 * @example await probePass(db, { agent, now: () => new Date() });
 */
export async function probePass(db: DB, options: ProbePassOptions): Promise<ProbePassSummary> {
  const targets = listProbeTargets(db).slice(0, options.limit ?? Infinity);
  const summary: ProbePassSummary = { probed: 0, live: 0, not_live: {} };
  const queue = new PQueue({ concurrency: options.concurrency ?? DEFAULT_PROBE_CONCURRENCY });
  let done = 0;
  await queue.addAll(
    longestFirst(groupByHost(targets), options.timeoutMs ?? PROBE_TIMEOUT_MS).map((hostTargets) => async () => {
      for (const target of hostTargets) {
        const outcome = await probeEndpoint({ url: target.url, method: target.method, body: target.body }, { agent: options.agent, timeoutMs: options.timeoutMs, now: options.now });
        recordProbe(db, { service_id: target.service_id, ...outcome });
        summary.probed += 1;
        if (outcome.ok) summary.live += 1;
        else summary.not_live[outcome.reason ?? 'unknown'] = (summary.not_live[outcome.reason ?? 'unknown'] ?? 0) + 1;
        options.onProbe?.(++done, targets.length);
      }
    }),
  );
  return summary;
}

/**
 * The hosts' probe chains, the longest expected first (from each service's last probe; one never probed counts as
 * the time limit): slow and dead hosts then run beside the many fast ones instead of starting last and holding the
 * pass open for a whole time limit after everything else is done.
 */
function longestFirst(groups: Map<string, ProbeTarget[]>, timeoutMs: number): ProbeTarget[][] {
  const expectedMs = (chain: ProbeTarget[]) => chain.reduce((sum, target) => sum + (target.last_latency_ms ?? timeoutMs), 0);
  return [...groups.values()]
    .map((chain) => ({ chain, ms: expectedMs(chain) }))
    .sort((a, b) => b.ms - a.ms)
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
