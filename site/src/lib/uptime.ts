import type { DB } from '../../../data/db.ts';
import { countProbeDaysSince, countProbesSince, type CheckCounts } from '../../../data/pages.ts';
import { formatPercent, plural } from './format.ts';

/** The windows a listing page shows uptime over. */
export const UPTIME_WINDOWS = [
  { label: '24 h', hours: 24 },
  { label: '7 d', hours: 7 * 24 },
  { label: '30 d', hours: 30 * 24 },
] as const;

export interface UptimeView {
  label: string;
  /** `99.5 %`, or `No checks` when the window holds none. */
  percent: string;
  /** `199 of 200 checks detected a challenge`, or an empty string. */
  detail: string;
}

/**
 * Uptime of a service's main endpoint: the share of checks in each window that detected a challenge.
 * The 24 h window counts raw probes; longer windows use the daily roll-ups when they hold at least as many
 * checks as the raw probes still kept (the crawler prunes old probes and keeps the roll-ups), else the probes.
 * @example getUptime(db, 'api-example-com', new Date())[0] // { label: '24 h', percent: '100 %', detail: '...' }
 */
export function getUptime(db: DB, serviceId: string, now: Date): UptimeView[] {
  return UPTIME_WINDOWS.map((window) => {
    const since = new Date(now.getTime() - window.hours * 3_600_000);
    const raw = countProbesSince(db, serviceId, since.toISOString());
    const counts = window.hours <= 24 ? raw : larger(raw, countProbeDaysSince(db, serviceId, since.toISOString().slice(0, 10)));
    return toUptimeView(window.label, counts);
  });
}

/** One window's figures as text. */
export function toUptimeView(label: string, counts: CheckCounts): UptimeView {
  const percent = formatPercent(counts.challenges, counts.checks);
  return {
    label,
    percent: percent ?? 'No checks',
    detail: percent === null ? '' : `${counts.challenges.toLocaleString('en-US')} of ${plural(counts.checks, 'check')} detected a challenge`,
  };
}

const larger = (a: CheckCounts, b: CheckCounts): CheckCounts => (b.checks >= a.checks && b.checks > 0 ? b : a);
