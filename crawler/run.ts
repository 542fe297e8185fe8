import { pruneChanges } from '../data/changes.ts';
import { closeInterruptedCrawlRuns, finishCrawlRun, pruneProbeHistory, rollUpProbeDay, startCrawlRun } from '../data/crawl.ts';
import type { DB } from '../data/db.ts';
import { PROBE_HISTORY } from '../data/probe-read.ts';
import type { DirectoryConfig } from './directories.ts';
import type { DiscoveredEndpoint } from './discovered.ts';
import { discover, type DiscoverySummary } from './discover.ts';
import { checkFacilitators, type FacilitatorPassSummary } from './facilitators.ts';
import { readOriginDocuments } from './origin-documents.ts';
import type { ProbeAgent } from './probe.ts';
import { probePass, type ProbePassSummary } from './probe-pass.ts';
import { processSubmissions, type SubmissionsSummary } from './submissions.ts';

/** Raw probes are kept this long (at least the newest 20 per service always); daily roll-ups a year. */
export const KEEP_PROBES_DAYS = 7;
export const KEEP_PROBE_DAYS_DAYS = 365;
const DAY_MS = 86_400_000;

export interface CrawlOptions {
  agent: ProbeAgent;
  directories: DirectoryConfig[];
  extra?: DiscoveredEndpoint[];
  discover: boolean;
  probe: boolean;
  limit?: number;
  concurrency?: number;
  timeoutMs?: number;
  /** Checks beyond the main probes a pass may make (crawler/probe-pass.ts); default a fifth of its probes. */
  checkBudget?: number;
  /** The facilitators of the configuration: when given, every facilitator seen is checked (at most hourly) after the probes. */
  facilitators?: readonly string[];
  now: () => Date;
  onPhase?: (phase: 'discovery' | 'probes' | 'submissions') => void;
  onProbe?: (done: number, total: number) => void;
}

export interface CrawlSummary {
  run_id: number;
  discovery: DiscoverySummary | null;
  probes: ProbePassSummary | null;
  submissions: SubmissionsSummary | null;
  facilitators: FacilitatorPassSummary | null;
  errors: string[];
}

/** The runs this process has open: a 'running' run of this process's pid that is not one of them is an earlier process's. */
const openRuns = new Set<number>();

/**
 * Whether the process of a run still 'running' has ended without closing it. A run recorded before processes were
 * has nothing to tell it by, and is taken as ended: a run that is in fact still going closes itself as it finishes.
 */
function isRunProcessGone(run: { id: number; pid: number | null }): boolean {
  if (run.pid === null) return true;
  if (run.pid === process.pid) return !openRuns.has(run.id);
  try {
    process.kill(run.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * One crawl: discovery (when asked, with the hosts' own documents due: crawler/origin-documents.ts), a probe pass over every main endpoint (when asked), the submission queue,
 * then daily roll-ups and pruning (probes, and changes past 90 days). A fault in one directory or one service never
 * stops it; the run is recorded with its counts and errors, after closing as interrupted the runs whose process ended
 * without closing them.
 * @example await runCrawl(db, { agent, directories: DEFAULT_DIRECTORIES, discover: true, probe: true, now: () => new Date() });
 */
export async function runCrawl(db: DB, options: CrawlOptions): Promise<CrawlSummary> {
  const kind = options.discover && options.probe ? 'full' : options.discover ? 'discovery' : 'probe';
  const startedAt = options.now().toISOString();
  closeInterruptedCrawlRuns(db, isRunProcessGone, startedAt);
  const runId = startCrawlRun(db, kind, startedAt, process.pid);
  openRuns.add(runId);
  const summary: CrawlSummary = { run_id: runId, discovery: null, probes: null, submissions: null, facilitators: null, errors: [] };
  try {
    if (options.discover) {
      options.onPhase?.('discovery');
      summary.discovery = await discover(db, options);
      summary.errors.push(...summary.discovery.directories.filter((d) => d.error).map((d) => `${d.kind} ${d.url}: ${d.error}`));
    }
    if (options.probe) {
      options.onPhase?.('probes');
      summary.probes = await probePass(db, options);
      options.onPhase?.('submissions');
      summary.submissions = await processSubmissions(db, options);
      if (options.facilitators) summary.facilitators = await checkFacilitators(db, { ...options, configured: options.facilitators });
      keepHistoryBounded(db, options.now());
    }
    // Hosts' own documents after the probes: reading them waits on hosts that may never answer (10 s each), and the
    // probe pass a start or a schedule promises must not wait behind them. What they list is checked next pass.
    if (options.discover) await readOriginDocuments(db, options);
    finish(db, summary, options.now(), 'finished');
  } catch (error) {
    summary.errors.push((error as Error).message);
    finish(db, summary, options.now(), 'failed');
    throw error;
  } finally {
    openRuns.delete(runId);
  }
  return summary;
}

function keepHistoryBounded(db: DB, now: Date): void {
  const today = now.toISOString().slice(0, 10);
  rollUpProbeDay(db, new Date(now.getTime() - DAY_MS).toISOString().slice(0, 10));
  rollUpProbeDay(db, today);
  pruneProbeHistory(db, {
    keepProbesSince: new Date(now.getTime() - KEEP_PROBES_DAYS * DAY_MS).toISOString(),
    keepLast: PROBE_HISTORY,
    keepDaysSince: new Date(now.getTime() - KEEP_PROBE_DAYS_DAYS * DAY_MS).toISOString().slice(0, 10),
  });
  pruneChanges(db, now);
}

function finish(db: DB, summary: CrawlSummary, now: Date, status: 'finished' | 'failed'): void {
  const { discovery, probes, submissions } = summary;
  finishCrawlRun(db, summary.run_id, { finishedAt: now.toISOString(), status, counts: { discovery, probes, submissions }, errors: summary.errors });
}
