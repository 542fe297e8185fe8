import { Service, ServiceDetail, ServiceList, Stats } from '../../../domain/schemas.ts';
import type { DB } from '../../../data/db.ts';
import { listAllServices, readAllServicesInBatches } from '../../../data/pages.ts';
import { readServiceDetail } from '../../../data/service-detail.ts';
import { getStats } from '../../../data/service-read.ts';

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
    page: { limit: Math.min(500, Math.max(1, services.length)), offset: 0, next_offset: null, sort: 'quality', ignored: [] },
    services,
  });
}

/** How many services the whole-index snapshot reads, parses and writes at a time. */
const SNAPSHOT_BATCH = 500;

/**
 * toServicesSnapshot as JSON text, handed to `write` in pieces: the envelope, then the services a batch at a time,
 * each parsed with the API's schema; the same bytes as `JSON.stringify(toServicesSnapshot(db, generatedAt))`, without
 * the whole index in memory at once (the list and its parsed copy held about 70 MB at 10,000 services).
 * @example writeServicesSnapshot(db, generatedAt, (chunk) => writeSync(fd, chunk));
 */
export function writeServicesSnapshot(db: DB, generatedAt: string, write: (chunk: string) => void): void {
  let first = true;
  readAllServicesInBatches(db, SNAPSHOT_BATCH, (stats) => {
    const envelope = JSON.stringify(ServiceList.parse({
      generated_at: generatedAt,
      counts: { total: stats.total, live: stats.live, dual_rail: stats.dual_rail },
      page: { limit: Math.min(500, Math.max(1, stats.total)), offset: 0, next_offset: null, sort: 'quality', ignored: [] },
      services: [],
    }));
    if (!envelope.endsWith(EMPTY_TAIL)) throw new Error('the list shape no longer ends in its services');
    write(envelope.slice(0, -2));
  }, (services) => {
    write(`${first ? '' : ','}${services.map((service) => JSON.stringify(Service.parse(service))).join(',')}`);
    first = false;
  });
  write(']}');
}

const EMPTY_TAIL = '"services":[]}';

/** The census counts, as `GET /api/v1/stats` answers them. */
export function toStatsSnapshot(db: DB, generatedAt: string): Stats {
  return Stats.parse({ generated_at: generatedAt, ...getStats(db) });
}

/**
 * One service in the detail shape, as `GET /api/v1/services/{id}` answers it (the stored detail answer, its uptime
 * as of the service's last write: data/service-detail.ts), or null when not in the index.
 */
export function toServiceSnapshot(db: DB, id: string): ServiceDetail | null {
  const stored = readServiceDetail(db, id);
  return stored && ServiceDetail.parse(JSON.parse(stored.body));
}
