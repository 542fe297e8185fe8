import PQueue from 'p-queue';
import { iterateProbeSlots, readProbeTargets, type ProbeTarget } from '../data/crawl.ts';
import type { DB } from '../data/db.ts';
import { listDueEndpoints, recordEndpointChecks, recordWildcardChecks, type DueEndpoint } from '../data/endpoint-checks.ts';
import { recordNotProbed, recordProbes } from '../data/probes.ts';
import type { EndpointCheckInput, ProbeInput, WildcardCheckInput } from '../data/types.ts';
import { toFlags } from './flags.ts';
import { PROBE_TIMEOUT_MS, probeEndpoint, type ProbeAgent, type ProbeOutcome } from './probe.ts';
import { fillUrlTemplate, isUrlTemplate } from './template.ts';
import { isSame402, isWildcardCheckDue, toSiblingUrl } from './wildcard.ts';

/**
 * Probes in flight at once, across hosts (one at a time per host), unless a pass is told otherwise: as many as it
 * needs to end within PASS_AIM_MS by its services' last durations (`toPassConcurrency`), at least the fewest and at
 * most the most below. 128 lets a pass over 100,000 services end within the 5-minute probe interval; a smaller index
 * takes fewer, so its pass asks the machine it shares with the API for no more than it needs (docs/decisions.md,
 * "Freshness at scale"). One socket each, far below the usual limit of 1,024 open files.
 */
export const MIN_PROBE_CONCURRENCY = 64;
export const MAX_PROBE_CONCURRENCY = 128;
/** A pass aims to end within a third of the default 5-minute probe interval. */
export const PASS_AIM_MS = 100_000;

/**
 * The probes in flight a pass takes on when its requests are expected to take `expectedMs` in all.
 * @example toPassConcurrency(2_300_000) // 64
 */
export function toPassConcurrency(expectedMs: number): number {
  return Math.min(MAX_PROBE_CONCURRENCY, Math.max(MIN_PROBE_CONCURRENCY, Math.ceil(expectedMs / PASS_AIM_MS)));
}

/**
 * The requests a pass may make beyond its main probes (wildcard and endpoint checks), as a share of its main probes:
 * the checks add at most this much to a pass. With 10,000 hosts listing 25 endpoints each on average, a fifth is
 * 2,000 checks a pass, 576,000 a day at the 5-minute interval: every endpoint within a day (npm run bench).
 */
export const CHECK_SHARE = 0.2;
/**
 * Wildcard checks take at most this share of a pass's budget, so that the day a large index first sees its hosts,
 * their endpoints are checked beside them rather than after them.
 */
const WILDCARD_SHARE = 0.5;
/** The budget of a pass with few services, so that a small index still checks its endpoints within a day. */
const MIN_CHECK_BUDGET = 20;
/** Endpoint checks of one service in one pass at most: a host listing 50 is spread over passes, not one long chain. */
export const ENDPOINT_CHECKS_PER_SERVICE = 4;
/** A listed endpoint is checked at most once in this long. */
export const ENDPOINT_CHECK_EVERY_MS = 86_400_000;

export interface ProbePassOptions {
  agent: ProbeAgent;
  concurrency?: number;
  limit?: number;
  timeoutMs?: number;
  /**
   * Checks beyond the main probes this pass may make (a check is one URL asked once, plus the retry a 429/503 earns);
   * default `toCheckBudget(main probes)`. 0 turns checks off.
   */
  checkBudget?: number;
  now: () => Date;
  onProbe?: (done: number, total: number) => void;
}

export interface ProbePassSummary {
  /** Probes in flight at once at most (the option given, or `toPassConcurrency`). */
  concurrency: number;
  probed: number;
  live: number;
  /** Services not live, by the reason of their probe. */
  not_live: Record<string, number>;
  /** Main endpoints not probed (URL templates nothing fills). */
  not_probed: number;
  /** Random-path checks of hosts made. */
  wildcard_checks: number;
  /** Listed endpoints checked (templates recorded as not checked included). */
  endpoint_checks: number;
}

/**
 * The requests beyond its main probes a pass of `mainProbes` may make.
 * @example toCheckBudget(10_000) // 2000
 */
export function toCheckBudget(mainProbes: number): number {
  return Math.max(MIN_CHECK_BUDGET, Math.ceil(mainProbes * CHECK_SHARE));
}

/**
 * Probes wait at most this long, or until this many are waiting, to be recorded together (`createRecorder`):
 * small transactions, since the API's readers slow down beside larger ones.
 */
const RECORD_EVERY_MS = 25;
const RECORD_BATCH = 16;

/** What one pass shares among its host chains. */
interface PassContext {
  db: DB;
  options: ProbePassOptions;
  summary: ProbePassSummary;
  /** Checks beyond the main probes still allowed, and how many of them may still be wildcard checks. */
  budget: { left: number; wildcardsLeft: number };
  probes: Recorder<ProbeInput>;
  endpointChecks: Recorder<EndpointCheckInput>;
  wildcardChecks: Recorder<WildcardCheckInput>;
}

/**
 * Probes every main endpoint once, recording probes within RECORD_EVERY_MS of landing (a pass killed half-way keeps
 * what it did), with each service's flags (crawler/flags.ts); checks a random sibling path of each host whose main
 * endpoint answered 402 and whose last such check is a day old, and the listed endpoints due (none checked within a
 * day) of each service whose main endpoint answered this pass (a host that gave no answer is asked nothing more, so a
 * dead host's checks never hold the pass open), all within the pass's check budget.
 * At most `concurrency` requests run at once and never two to one host (name and port): a host's main probes, its
 * wildcard check and its endpoint checks run one after another.
 * @example await probePass(db, { agent, now: () => new Date() });
 */
export async function probePass(db: DB, options: ProbePassOptions): Promise<ProbePassSummary> {
  const plan = planPass(db, options);
  const concurrency = options.concurrency ?? toPassConcurrency(plan.expectedMs);
  const summary: ProbePassSummary = { concurrency, probed: 0, live: 0, not_live: {}, not_probed: 0, wildcard_checks: 0, endpoint_checks: 0 };
  const budget = options.checkBudget ?? toCheckBudget(plan.total);
  const ctx: PassContext = {
    db, options, summary,
    budget: { left: budget, wildcardsLeft: Math.ceil(budget * WILDCARD_SHARE) },
    probes: createRecorder((batch) => recordProbes(db, batch)),
    endpointChecks: createRecorder((batch) => recordEndpointChecks(db, batch)),
    wildcardChecks: createRecorder((batch) => recordWildcardChecks(db, batch)),
  };
  const dueByService = listDueByService(db, plan.wildcardsDue, ctx.budget, options.now());
  const queue = new PQueue({ concurrency });
  let done = 0;
  const hostChain = async (hostTargets: ProbeTarget[]) => {
    const answered: ProbeTarget[] = [];
    for (const target of hostTargets) {
      if (await probeMain(target, ctx)) answered.push(target);
      options.onProbe?.(++done, plan.total);
    }
    for (const target of answered) await checkEndpoints(dueByService.get(target.service_id) ?? [], ctx);
  };
  await queueAsSlotsFree(queue, readChains(db, plan.chains), hostChain);
  for (const recorder of [ctx.probes, ctx.endpointChecks, ctx.wildcardChecks]) recorder.finish();
  return summary;
}

/**
 * A pass's plan: the hosts' chains in the order they start, how many services, how long their requests are expected
 * to take in all, and the wildcard checks due. A chain is its host's service ids joined by CHAIN_SEPARATOR (ids hold
 * none): one string a host, since a pass holds every host's at once and an array a host costs several times its text.
 */
interface PassPlan {
  chains: string[];
  total: number;
  expectedMs: number;
  wildcardsDue: number;
}

const CHAIN_SEPARATOR = ' ';

/**
 * Plans a pass from what it first reads of each main endpoint (data/crawl.ts, `iterateProbeSlots`): the services of
 * each host (name and port) in one chain, in start order (`toStartOrder`), and the wildcard checks due (of hosts
 * whose main endpoint last answered 402).
 */
function planPass(db: DB, options: ProbePassOptions): PassPlan {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const now = options.now();
  const chainByHost = new Map<string, number>();
  const chains: string[] = [];
  const chainMs: number[] = [];
  let total = 0;
  let expectedMs = 0;
  let wildcardsDue = 0;
  for (const slot of iterateProbeSlots(db, options.limit)) {
    total += 1;
    const wildcard = slot.wildcard_checked_at === null ? null : { checked_at: slot.wildcard_checked_at };
    if (slot.last_status_code === 402 && isWildcardCheckDue(wildcard, now)) wildcardsDue += 1;
    // A service never probed is expected to take the time limit.
    const ms = slot.last_latency_ms ?? timeoutMs;
    expectedMs += ms;
    const host = new URL(slot.url).host;
    const index = chainByHost.get(host);
    if (index === undefined) {
      chainByHost.set(host, chains.length);
      chains.push(slot.service_id);
      chainMs.push(ms);
    } else {
      chains[index] += `${CHAIN_SEPARATOR}${slot.service_id}`;
      chainMs[index]! += ms;
    }
  }
  return { chains: toStartOrder(chains, chainMs), total, expectedMs, wildcardsDue };
}

/** Service ids read from the database at once when the pass reaches them: a few hundred hosts' targets in memory. */
const TARGET_PAGE = 256;

/** The chains' probe targets, read a page of chains at a time as the pass reaches them (a service gone since is skipped). */
function* readChains(db: DB, chains: string[]): Generator<ProbeTarget[]> {
  for (let start = 0; start < chains.length; start += TARGET_PAGE) {
    const page = chains.slice(start, start + TARGET_PAGE).map((chain) => chain.split(CHAIN_SEPARATOR));
    const byId = new Map(readProbeTargets(db, page.flat()).map((target) => [target.service_id, target]));
    for (const ids of page) {
      const chain = ids.flatMap((id) => byId.get(id) ?? []);
      if (chain.length > 0) yield chain;
    }
  }
}

/**
 * Runs `task` on every item through `queue`, adding items only while fewer than `queue.concurrency` wait: each task
 * queued is memory held, and a whole pass queued at once would not fit the crawl child's heap cap. Throws the first
 * task's error once the tasks started have ended.
 */
async function queueAsSlotsFree<T>(queue: PQueue, items: Iterable<T>, task: (item: T) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const item of items) {
    await queue.onSizeLessThan(queue.concurrency);
    if (failure) break;
    queue.add(() => task(item)).catch((error: unknown) => (failure ??= { error }));
  }
  await queue.onIdle();
  if (failure) throw failure.error;
}

/**
 * The listed endpoints due, by service: the budget left once the wildcard checks due (up to their share) are set aside.
 */
function listDueByService(db: DB, wildcardsDue: number, budget: PassContext['budget'], now: Date): Map<string, DueEndpoint[]> {
  const before = new Date(now.getTime() - ENDPOINT_CHECK_EVERY_MS).toISOString();
  const limit = budget.left - Math.min(wildcardsDue, budget.wildcardsLeft);
  const due = listDueEndpoints(db, { before, perService: ENDPOINT_CHECKS_PER_SERVICE, limit });
  const byService = new Map<string, DueEndpoint[]>();
  for (const endpoint of due) byService.set(endpoint.service_id, [...(byService.get(endpoint.service_id) ?? []), endpoint]);
  return byService;
}

/** Takes one check from the pass's budget (a wildcard check also from its share); false when none is left. */
function takeBudget(ctx: PassContext, wildcard = false): boolean {
  if (ctx.budget.left <= 0 || (wildcard && ctx.budget.wildcardsLeft <= 0)) return false;
  ctx.budget.left -= 1;
  if (wildcard) ctx.budget.wildcardsLeft -= 1;
  return true;
}

/**
 * Probes one main endpoint (a URL template filled from its listing's example, or not probed at all when nothing
 * fills it), makes the host's wildcard check when due, and records the probe with the flags observed. Answers
 * whether the host gave an HTTP answer.
 */
async function probeMain(target: ProbeTarget, ctx: PassContext): Promise<boolean> {
  const { options, summary } = ctx;
  const template = isUrlTemplate(target.url);
  const url = template ? fillUrlTemplate(target.url, target.body) : target.url;
  if (url === null) {
    const at = options.now();
    const flags = toFlags({ ...heldFacts(target), template, terms: null, lenient: false, unansweredSince: target.unanswered_since, now: at });
    recordNotProbed(ctx.db, target.service_id, { at: at.toISOString(), reason: NOT_PROBED_TEMPLATE, flags });
    summary.not_probed += 1;
    return false;
  }
  const outcome = await probeSafely({ ...target, url }, options);
  const wildcard402 = await checkWildcard(target, url, outcome, ctx);
  const unansweredSince = outcome.status_code === null ? (target.unanswered_since ?? outcome.probed_at) : null;
  const flags = toFlags({
    ...heldFacts(target), template, terms: outcome.terms, lenient: outcome.lenient, unansweredSince,
    wildcard402, now: new Date(outcome.probed_at),
  });
  ctx.probes.add({ service_id: target.service_id, ...outcome, flags });
  summary.probed += 1;
  if (outcome.ok) summary.live += 1;
  else summary.not_live[outcome.reason ?? 'unknown'] = (summary.not_live[outcome.reason ?? 'unknown'] ?? 0) + 1;
  return outcome.status_code !== null;
}

/** Why a URL template is not probed. */
export const NOT_PROBED_TEMPLATE = 'URL template: not probed as written, and the listing gives no example to fill it';

function heldFacts(target: ProbeTarget) {
  return { listedPriceUsd: target.listed_price_usd, held: target.flags, wildcard402: target.wildcard?.same_402 ?? null };
}

/**
 * The host's wildcard check, when its main endpoint answered 402, its last check is a day old and the budget allows:
 * one random sibling path, the same method and body. Answers whether the host answers the same 402 there (the last
 * check's answer when none is made now; null when it never was).
 */
async function checkWildcard(target: ProbeTarget, url: string, main: PassOutcome, ctx: PassContext): Promise<boolean | null> {
  const held = target.wildcard?.same_402 ?? null;
  if (main.status_code !== 402 || !isWildcardCheckDue(target.wildcard, ctx.options.now()) || !takeBudget(ctx, true)) return held;
  const siblingUrl = toSiblingUrl(url);
  // The method the main endpoint answered, and no other: a sibling's 404 to it is the answer.
  const sibling = await probeSafely({ ...target, url: siblingUrl, method: main.method ?? target.method }, ctx.options, false);
  const same402 = isSame402(main, sibling);
  ctx.wildcardChecks.add({ service_id: target.service_id, checked_at: sibling.probed_at, url: siblingUrl, status_code: sibling.status_code, same_402: same402 });
  ctx.summary.wildcard_checks += 1;
  return same402;
}

/** Why a listed URL template is not checked. */
export const NOT_CHECKED_TEMPLATE = 'URL template: not checked as written, and the listing gives no example to fill it';

/** Checks a service's listed endpoints due, one after another, while the budget allows. */
async function checkEndpoints(due: DueEndpoint[], ctx: PassContext): Promise<void> {
  for (const endpoint of due) {
    const url = isUrlTemplate(endpoint.url) ? fillUrlTemplate(endpoint.url, endpoint.body) : endpoint.url;
    const base = { service_id: endpoint.service_id, method: endpoint.method, url: endpoint.url };
    if (url === null) {
      // No request is made, so none is taken from the budget.
      ctx.endpointChecks.add({ ...base, checked_at: ctx.options.now().toISOString(), ok: false, status_code: null, latency_ms: null, reason: NOT_CHECKED_TEMPLATE });
    } else {
      if (!takeBudget(ctx)) return;
      // A listed method is the endpoint's; only one listed without a method is also tried as POST.
      const outcome = await probeSafely({ url, method: endpoint.method || null, body: endpoint.body }, ctx.options, endpoint.method === '');
      ctx.endpointChecks.add({
        ...base, checked_at: outcome.probed_at, ok: outcome.ok, status_code: outcome.status_code, latency_ms: outcome.latency_ms,
        reason: outcome.reason, ...(outcome.terms ? { challenge: { offers: outcome.terms.offers, x402: outcome.terms.x402 } } : {}),
      });
    }
    ctx.summary.endpoint_checks += 1;
  }
}

/** What a pass keeps of a probe. */
type PassOutcome = Omit<ProbeInput, 'service_id'> & Pick<ProbeOutcome, 'lenient'> & { terms: ProbeOutcome['terms'] };

/** `probeEndpoint`, or a failed probe saying so when it throws: one service's fault never stops the pass. */
async function probeSafely(
  target: { url: string; method: string | null; body?: unknown },
  options: ProbePassOptions,
  fallback = true,
): Promise<PassOutcome> {
  try {
    const { final_url: _url, signals: _signals, notes: _notes, ...outcome } = await probeEndpoint(
      { url: target.url, method: target.method, body: target.body },
      { agent: options.agent, timeoutMs: options.timeoutMs, now: options.now, fallback },
    );
    return outcome;
  } catch (error) {
    const reason = `answer could not be read (${error instanceof Error ? error.message : String(error)})`.slice(0, 200);
    return {
      probed_at: (options.now?.() ?? new Date()).toISOString(), ok: false, status_code: null, method: null, latency_ms: null,
      reason, detected_rails: [], terms: null, lenient: false,
    };
  }
}

interface Recorder<T> {
  add(record: T): void;
  finish(): void;
}

/**
 * Records in batches, one transaction each (`write`): a commit costs more than the few rows of a probe, and each
 * commit makes the API's connection drop its page cache. `finish` records the rest and throws what a timed
 * batch threw.
 */
function createRecorder<T>(write: (batch: T[]) => void): Recorder<T> {
  let pending: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length > 0) write(batch);
  };
  const flushOnTimer = () => {
    try {
      flush();
    } catch (error) {
      failure ??= error;
    }
  };
  return {
    add(record) {
      pending.push(record);
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
 * those too would leave the fastest hosts for the end, where the slots turning over every few milliseconds ask for
 * more CPU than the machine has and every probe's latency grows.
 */
function toStartOrder(chains: string[], chainMs: number[]): string[] {
  const long = chains.map((_, index) => index).filter((index) => chainMs[index]! >= LONG_CHAIN_MS);
  // Array.prototype.sort is stable: chains expected to take as long keep the order listed.
  long.sort((a, b) => chainMs[b]! - chainMs[a]!);
  return [...long.map((index) => chains[index]!), ...chains.filter((_, index) => chainMs[index]! < LONG_CHAIN_MS)];
}
