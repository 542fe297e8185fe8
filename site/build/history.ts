import { createHash } from 'node:crypto';
import type { DataStamp } from '../../data/pages.ts';

/**
 * When a listing page's check history is rendered again. A new check alone does not re-render a page (every pass
 * checks every service, and rendering and uploading every page each pass does not scale); its history is rendered
 * again once every HISTORY_INTERVAL_MS instead, on the clock of the data (its newest check or write), not the wall
 * clock. Each service's half hours start at an offset of its own, so a pass renders a share of the pages, not all
 * of them at every :00 and :30.
 */

export const HISTORY_INTERVAL_MS = 30 * 60_000;

/** The data's clock: its newest check or crawl write (null before either, or in a stamp from before it was kept). */
export function toDataClock(stamp: DataStamp): string | null {
  const times = [stamp.maxProbedAt, stamp.maxUpdatedAt].filter((time): time is string => typeof time === 'string');
  return stamp.maxProbedAt === undefined || times.length === 0 ? null : times.sort().at(-1)!;
}

/** Where a service's intervals start within the half hour: a hash of its id. */
function toOffsetMs(id: string): number {
  return createHash('sha1').update(id).digest().readUInt32BE(0) % HISTORY_INTERVAL_MS;
}

/** The number of the service's history interval holding `time`. */
export function toHistorySlot(id: string, time: string): number {
  return Math.floor((Date.parse(time) + toOffsetMs(id)) / HISTORY_INTERVAL_MS);
}

/**
 * Whether a service's history interval ended between the data a release was rendered from (`renderedAt`, the
 * data clock then) and the data now: then its page is rendered again although its state did not change.
 * @example isHistoryDue('api-example-com', '2026-11-01T12:00:00.000Z', '2026-11-01T12:35:00.000Z') // true
 */
export function isHistoryDue(id: string, renderedAt: string | null, now: string | null): boolean {
  if (now === null) return false;
  if (renderedAt === null) return true;
  return toHistorySlot(id, renderedAt) !== toHistorySlot(id, now);
}
