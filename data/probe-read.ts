import { preparedOnce, type DB } from './db.ts';
import type { Probe } from '../domain/schemas.ts';

/** A probe as the detail route shows it (ServiceDetail's `probes`), newest first. */
export type ProbeRecord = Probe;

/** How many probes the detail route and the listing page show. */
export const PROBE_HISTORY = 20;

const statements = preparedOnce({
  recent: `SELECT probed_at, ok, status_code, method, latency_ms, reason, detected_rails FROM probes
    WHERE service_id = ? ORDER BY probed_at DESC, id DESC LIMIT ?`,
});

/** The last probes of a service, newest first. */
export function listProbes(db: DB, serviceId: string, limit = PROBE_HISTORY): ProbeRecord[] {
  const rows = statements(db).recent.all(serviceId, limit) as Array<
    Omit<ProbeRecord, 'ok' | 'detected_rails'> & { ok: number; detected_rails: string }
  >;
  return rows.map((row) => ({ ...row, ok: row.ok === 1, detected_rails: JSON.parse(row.detected_rails) }));
}
