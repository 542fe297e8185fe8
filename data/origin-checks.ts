import { preparedOnce, type DB } from './db.ts';

/* When each listed host's own discovery documents were last read (crawler/origin-documents.ts): at most daily. */

const statements = preparedOnce({
  due: `SELECT s.id, s.endpoint FROM services s LEFT JOIN origin_checks o ON o.service_id = s.id
    WHERE (s.endpoint LIKE 'http://%' OR s.endpoint LIKE 'https://%') AND (o.checked_at IS NULL OR o.checked_at < @before)
    ORDER BY o.checked_at IS NOT NULL, o.checked_at, s.id LIMIT @limit`,
  record: `INSERT INTO origin_checks (service_id, checked_at, found) VALUES (?, ?, ?)
    ON CONFLICT (service_id) DO UPDATE SET checked_at = excluded.checked_at, found = excluded.found`,
});

/**
 * Services whose host's documents were not read since `before`, never-read first, then the longest unread.
 * @example listDueOrigins(db, { before: dayAgo, limit: 200 })
 */
export function listDueOrigins(db: DB, options: { before: string; limit: number }): Array<{ id: string; endpoint: string }> {
  return statements(db).due.all(options) as Array<{ id: string; endpoint: string }>;
}

/** Records that a host's documents were read at `at`, and how many endpoints they listed. */
export function recordOriginCheck(db: DB, serviceId: string, at: string, found: number): void {
  statements(db).record.run(serviceId, at, found);
}
