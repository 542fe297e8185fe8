import type { Endpoint, EndpointCheck, Probe } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';

const statements = preparedOnce({
  endpoints: `SELECT e.method, e.url, e.price_usd, e.price_display, e.description, e.sources,
      c.checked_at, c.ok, c.status_code, c.latency_ms, c.reason
    FROM service_endpoints e
    LEFT JOIN endpoint_checks c ON c.service_id = e.service_id AND c.method = coalesce(e.method, '') AND c.url = e.url
    WHERE e.service_id = ? ORDER BY e.position`,
});

/**
 * Every listed endpoint of a service with its last check; the main endpoint's is its newest probe (`newestProbe`),
 * since it is probed every pass.
 */
export function listServiceEndpoints(db: DB, id: string, main: { url: string; newestProbe: Probe | undefined }): Endpoint[] {
  const rows = statements(db).endpoints.all(id) as Array<{
    method: string | null; url: string; price_usd: number | null; price_display: string | null; description: string | null;
    sources: string; checked_at: string | null; ok: number | null; status_code: number | null; latency_ms: number | null;
    reason: string | null;
  }>;
  return rows.map((row) => {
    const probe = row.url === main.url ? main.newestProbe : undefined;
    const lastCheck: EndpointCheck | null = probe
      ? { at: probe.probed_at, ok: probe.ok, status_code: probe.status_code, latency_ms: probe.latency_ms, reason: probe.reason }
      : row.checked_at === null
        ? null
        : { at: row.checked_at, ok: row.ok === 1, status_code: row.status_code, latency_ms: row.latency_ms, reason: row.reason };
    return {
      method: row.method, url: row.url, price: { display: row.price_display, usd: row.price_usd },
      description: row.description, sources: JSON.parse(row.sources), last_check: lastCheck,
    };
  });
}
