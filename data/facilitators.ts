import { preparedOnce, type DB } from './db.ts';
import type { Facilitator, FacilitatorKind, FacilitatorSeenIn } from '../domain/facilitators.ts';

/*
 * Facilitators the index has seen and the last answer of each one's `/supported` (data/migrations/017). A URL is kept
 * in one form (`toFacilitatorUrl`), so a directory's `https://x.test/facilitator/` and a challenge's
 * `https://x.test/facilitator` are one facilitator.
 */

interface FacilitatorRow {
  url: string;
  seen_in: string;
  checked_at: string | null;
  live: number | null;
  error: string | null;
  kinds: string;
  extensions: string;
}

const statements = preparedOnce({
  note: `INSERT INTO facilitators (url, seen_in, first_seen) VALUES (?, json_array(?), ?)
    ON CONFLICT (url) DO UPDATE SET seen_in = (
      SELECT json_group_array(value) FROM (SELECT value FROM json_each(facilitators.seen_in) UNION SELECT excluded.seen_in ->> 0 ORDER BY 1)
    )`,
  due: `SELECT url FROM facilitators WHERE checked_at IS NULL OR checked_at <= ? ORDER BY url`,
  answered: `UPDATE facilitators SET checked_at = ?, live = 1, error = NULL, kinds = ?, extensions = ? WHERE url = ?`,
  failed: `UPDATE facilitators SET checked_at = ?, live = 0, error = ? WHERE url = ?`,
  all: `SELECT url, seen_in, checked_at, live, error, kinds, extensions FROM facilitators ORDER BY url`,
  named: `SELECT facilitator, COUNT(*) AS n FROM services WHERE facilitator IS NOT NULL GROUP BY facilitator`,
});

/**
 * A facilitator URL in the one form kept: an absolute http(s) URL without query, fragment, credentials or trailing
 * slash; null when the text is not one.
 * @example toFacilitatorUrl('https://X402.org/facilitator/') // 'https://x402.org/facilitator'
 */
export function toFacilitatorUrl(text: string): string | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (!/^https?:$/.test(url.protocol) || url.username !== '' || url.password !== '') return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Records facilitators seen, and where; a URL seen again keeps its checks.
 * @example noteFacilitators(db, [{ url: 'https://x402.org/facilitator', seenIn: 'configuration' }], now)
 */
export function noteFacilitators(db: DB, seen: ReadonlyArray<{ url: string; seenIn: FacilitatorSeenIn }>, now: string): void {
  const s = statements(db);
  db.transaction(() => {
    for (const { url, seenIn } of seen) {
      const kept = toFacilitatorUrl(url);
      if (kept !== null) s.note.run(kept, seenIn, now);
    }
  }).immediate();
}

/** The facilitators named by listed services, as directories gave them. */
export function listDirectoryFacilitators(db: DB): string[] {
  return (statements(db).named.all() as Array<{ facilitator: string }>).map((row) => row.facilitator);
}

/** The facilitators never checked, or last checked at or before `before`. */
export function listFacilitatorsDue(db: DB, before: string): string[] {
  return (statements(db).due.all(before) as Array<{ url: string }>).map((row) => row.url);
}

/** Records a check of `{url}/supported`: its kinds and extensions when it answered, else why not (the last kinds are kept). */
export function recordFacilitatorCheck(db: DB, url: string, at: string, answer: { kinds: FacilitatorKind[]; extensions: string[] } | { error: string }): void {
  const s = statements(db);
  if ('error' in answer) s.failed.run(at, answer.error, url);
  else s.answered.run(at, JSON.stringify(answer.kinds), JSON.stringify(answer.extensions), url);
}

/**
 * Every facilitator seen, with how many listed services name it; the most named first, then by URL.
 * @example listFacilitators(db)[0] // { url, live, last_check, kinds, extensions, services, seen_in }
 */
export function listFacilitators(db: DB): Facilitator[] {
  const s = statements(db);
  const services = new Map<string, number>();
  for (const { facilitator, n } of s.named.all() as Array<{ facilitator: string; n: number }>) {
    const url = toFacilitatorUrl(facilitator);
    if (url !== null) services.set(url, (services.get(url) ?? 0) + n);
  }
  return (s.all.all() as FacilitatorRow[]).map((row) => ({
    url: row.url,
    live: row.live === null ? null : row.live === 1,
    last_check: row.checked_at === null ? null : { at: row.checked_at, ok: row.live === 1, error: row.error },
    kinds: JSON.parse(row.kinds),
    extensions: JSON.parse(row.extensions),
    services: services.get(row.url) ?? 0,
    seen_in: JSON.parse(row.seen_in),
  })).sort((a, b) => b.services - a.services || (a.url < b.url ? -1 : 1));
}
