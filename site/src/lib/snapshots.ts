import { ServiceDetail, ServiceList, Stats } from '../../../api/schemas.ts';
import type { DB } from '../../../data/db.ts';
import { listAllServices } from '../../../data/pages.ts';
import { listProbes } from '../../../data/probes.ts';
import { getService, getStats, listSourceUrls } from '../../../data/services.ts';

/**
 * The JSON snapshots a build writes beside the pages, each parsed with the API's own zod schema before it is
 * written, so a snapshot can never disagree with the live API on a field's shape (a mismatch fails the build).
 */

/**
 * The whole index in the list shape: every service, counts over the whole index, one page with no next.
 * @example toServicesSnapshot(db, new Date().toISOString()).services.length
 */
export function toServicesSnapshot(db: DB, generatedAt: string): ServiceList {
  const services = listAllServices(db);
  const stats = getStats(db);
  return ServiceList.parse({
    generated_at: generatedAt,
    counts: { total: stats.total, live: stats.live, dual_rail: stats.dual_rail },
    // The list shape caps limit at 500; the snapshot holds everything, so next_offset is null.
    page: { limit: Math.min(500, Math.max(1, services.length)), offset: 0, next_offset: null },
    services,
  });
}

/** The census counts, as `GET /api/v1/stats` answers them. */
export function toStatsSnapshot(db: DB, generatedAt: string): Stats {
  return Stats.parse({ generated_at: generatedAt, ...getStats(db) });
}

/** One service in the detail shape, as `GET /api/v1/services/{id}` answers it, or null when not in the index. */
export function toServiceSnapshot(db: DB, id: string): ServiceDetail | null {
  const service = getService(db, id);
  if (!service) return null;
  return ServiceDetail.parse({ ...service, source_urls: listSourceUrls(db, id), probes: listProbes(db, id) });
}
