import { getIndexStatus } from '../../../data/crawl-status.ts';
import type { DB } from '../../../data/db.ts';
import type { IndexStatus } from '../../../domain/schemas.ts';
import { formatUtc, plural, toSafeHref } from './format.ts';

/** The `/status` page: what the crawler last did, in words (data: data/crawl-status.ts, as `GET /api/v1/status`). */

export interface PassView {
  title: string;
  /** `finished`, `failed` or `running`, in words. */
  state: string;
  started: string;
  took: string | null;
  /** Each count with what it counts. */
  facts: Array<{ label: string; value: string; note: string }>;
}

export interface StatusView {
  notice: string | null;
  probe: PassView | null;
  outcomes: Array<{ outcome: string; probes: string }>;
  discovery: PassView | null;
  directories: Array<{ kind: string; url: string; href: string | null; endpoints: string; error: string | null }>;
}

const STATES = { running: 'running now', finished: 'finished', failed: 'failed' } as const;

/**
 * A duration in words, to the second.
 * @example formatDuration(75_400) // '1 min 15 s'
 */
export function formatDuration(ms: number | null): string | null {
  if (ms === null) return null;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
}

export function getStatusView(db: DB, now: Date): StatusView {
  return toStatusView(getIndexStatus(db, now));
}

export function toStatusView(status: IndexStatus): StatusView {
  const probe = status.probe_pass;
  const discovery = status.discovery_pass;
  return {
    notice: status.notice,
    probe: probe && {
      ...toPass('Last probe pass', probe),
      facts: [
        { label: 'Services probed', value: probe.probed.toLocaleString('en-US'), note: 'one request to each main endpoint' },
        { label: 'Challenge detected', value: probe.live.toLocaleString('en-US'), note: 'answered a valid payment challenge' },
        { label: 'Answered at all', value: probe.reached.toLocaleString('en-US'), note: 'any HTTP answer, challenge or not; this index\'s own demo services count too' },
      ],
    },
    outcomes: (probe?.outcomes ?? []).map(({ outcome, probes }) => ({ outcome, probes: probes.toLocaleString('en-US') })),
    discovery: discovery && {
      ...toPass('Last discovery pass', discovery),
      facts: discovery.services
        ? [
            { label: 'Services found', value: discovery.services.found.toLocaleString('en-US'), note: 'in every directory read' },
            { label: 'New', value: discovery.services.new.toLocaleString('en-US'), note: 'not in the index before' },
            { label: 'Updated', value: discovery.services.updated.toLocaleString('en-US'), note: 'listed before, changed now' },
          ]
        : [],
    },
    directories: status.directories.map((read) => ({
      kind: read.kind,
      url: read.url,
      href: toSafeHref(read.url),
      endpoints: plural(read.endpoints, 'endpoint'),
      error: read.error,
    })),
  };
}

function toPass(title: string, pass: NonNullable<IndexStatus['probe_pass']> | NonNullable<IndexStatus['discovery_pass']>) {
  return {
    title,
    state: STATES[pass.status],
    started: formatUtc(pass.started_at) ?? pass.started_at,
    took: formatDuration(pass.duration_ms),
  };
}
