import type { DB } from '../../../data/db.ts';
import { getUptime as readUptime } from '../../../data/uptime.ts';
import { UPTIME_WINDOWS, type UptimeWindow } from '../../../domain/schemas.ts';
import { formatPercent, plural } from './format.ts';

export interface UptimeView {
  label: string;
  /** `99.5 %`, or `No checks` when the window holds none. */
  percent: string;
  /** `199 of 200 checks detected a challenge`, or an empty string. */
  detail: string;
}

/**
 * Uptime of a service's main endpoint, as the page shows it: the figures of `getUptime` (data/uptime.ts, the same
 * the detail answer carries) for each window, as text.
 * @example getUptime(db, 'api-example-com', new Date())[0] // { label: '24 h', percent: '100 %', detail: '...' }
 */
export function getUptime(db: DB, serviceId: string, now: Date): UptimeView[] {
  const uptime = readUptime(db, serviceId, now);
  return UPTIME_WINDOWS.map((window) => toUptimeView(window.label, uptime[window.key]));
}

/** One window's figures as text. */
function toUptimeView(label: string, counts: UptimeWindow): UptimeView {
  const percent = formatPercent(counts.detected, counts.checks);
  return {
    label,
    percent: percent ?? 'No checks',
    detail: percent === null ? '' : `${counts.detected.toLocaleString('en-US')} of ${plural(counts.checks, 'check')} detected a challenge`,
  };
}
