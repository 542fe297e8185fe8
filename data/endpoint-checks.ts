import { preparedOnce, type DB } from './db.ts';
import { recordChallenge } from './endpoints.ts';
import { storeServiceDetail } from './service-detail.ts';
import type { EndpointCheckInput, WildcardCheckInput } from './types.ts';

/*
 * The checks of listed endpoints other than the main one (probed every pass: data/probes.ts) and the daily
 * random-path check of each host. Each write is one function here, so the change log can hook on it.
 */

/** A listed endpoint due for its check. */
export interface DueEndpoint {
  service_id: string;
  /** '' when the directory gives none. */
  method: string;
  url: string;
  body?: unknown;
}

const statements = preparedOnce({
  // Never-checked first, then the longest unchecked; at most `perService` of one service, so a host listing many
  // endpoints is checked over several passes instead of holding one pass open.
  due: `SELECT service_id, method, url, example_body FROM (
      SELECT e.service_id, coalesce(e.method, '') AS method, e.url, e.example_body, c.checked_at,
        row_number() OVER (PARTITION BY e.service_id ORDER BY c.checked_at IS NOT NULL, c.checked_at, e.position) AS n
      FROM service_endpoints e JOIN services s ON s.id = e.service_id
      LEFT JOIN endpoint_checks c ON c.service_id = e.service_id AND c.method = coalesce(e.method, '') AND c.url = e.url
      WHERE e.url <> s.endpoint AND e.url NOT LIKE 'acp://%' AND (c.checked_at IS NULL OR c.checked_at < @before))
    WHERE n <= @perService ORDER BY checked_at IS NOT NULL, checked_at, service_id, n LIMIT @limit`,
  countListed: `SELECT count(*) FROM service_endpoints e JOIN services s ON s.id = e.service_id
    WHERE e.url <> s.endpoint AND e.url NOT LIKE 'acp://%'`,
  upsert: `INSERT INTO endpoint_checks (service_id, method, url, checked_at, ok, status_code, latency_ms, reason)
    VALUES (@service_id, @method, @url, @checked_at, @ok, @status_code, @latency_ms, @reason)
    ON CONFLICT (service_id, method, url) DO UPDATE SET checked_at = excluded.checked_at, ok = excluded.ok,
      status_code = excluded.status_code, latency_ms = excluded.latency_ms, reason = excluded.reason`,
  upsertWildcard: `INSERT INTO wildcard_checks (service_id, checked_at, url, status_code, same_402)
    VALUES (@service_id, @checked_at, @url, @status_code, @same_402)
    ON CONFLICT (service_id) DO UPDATE SET checked_at = excluded.checked_at, url = excluded.url,
      status_code = excluded.status_code, same_402 = excluded.same_402`,
});

/**
 * Listed endpoints (not the main one, nor `acp://`) not checked since `before`, never-checked first, then the
 * longest unchecked; at most `perService` of one service and `limit` in all.
 * @example listDueEndpoints(db, { before: dayAgo, perService: 4, limit: 500 })
 */
export function listDueEndpoints(db: DB, options: { before: string; perService: number; limit: number }): DueEndpoint[] {
  if (options.limit <= 0) return [];
  const rows = statements(db).due.all(options) as Array<Omit<DueEndpoint, 'body'> & { example_body: string | null }>;
  return rows.map(({ example_body, ...due }) => (example_body === null ? due : { ...due, body: JSON.parse(example_body) }));
}

/** How many listed endpoints the daily checks cover (every one but the main endpoints and `acp://`). */
export function countCheckedEndpoints(db: DB): number {
  return statements(db).countListed.pluck().get() as number;
}

/**
 * Records endpoint checks in one transaction and re-renders the detail answer of each service once, as of its
 * newest check.
 * @example recordEndpointChecks(db, [{ service_id, method: 'GET', url, checked_at, ok: true, status_code: 402, latency_ms: 12, reason: null }]);
 */
export function recordEndpointChecks(db: DB, checks: readonly EndpointCheckInput[]): void {
  const s = statements(db);
  db.transaction(() => {
    const newest = new Map<string, string>();
    for (const { challenge, ...check } of checks) {
      s.upsert.run({ ...check, ok: check.ok ? 1 : 0 });
      if (check.ok && challenge) recordChallenge(db, { ...challenge, service_id: check.service_id, method: check.method, url: check.url, at: check.checked_at });
      const held = newest.get(check.service_id);
      if (held === undefined || check.checked_at > held) newest.set(check.service_id, check.checked_at);
    }
    for (const [id, at] of newest) storeServiceDetail(db, id, at);
  }).immediate();
}

/** Records daily random-path checks of hosts, in one transaction. */
export function recordWildcardChecks(db: DB, checks: readonly WildcardCheckInput[]): void {
  const s = statements(db);
  db.transaction(() => {
    for (const check of checks) s.upsertWildcard.run({ ...check, same_402: check.same_402 ? 1 : 0 });
  }).immediate();
}
