import { getQuery, getRouterParam, type H3Event } from 'h3';
import { listServices } from '../../data/service-list.ts';
import type { DetailCache } from '../../data/detail-cache.ts';
import { getStats } from '../../data/services.ts';
import type { AppDeps } from '../app.ts';
import { apiError } from '../errors.ts';
import { toFilters, toPage } from '../query.ts';
import { JsonBytes } from '../http.ts';
import type { ServiceList } from '../schemas.ts';

/** GET /api/v1/services: one page of services matching the filters, with counts over every match. */
export function listServicesRoute({ db, now }: AppDeps) {
  return (event: H3Event): ServiceList => {
    const query = getQuery(event);
    const page = toPage(query);
    const { counts, services, more } = listServices(db, toFilters(query), page);
    return {
      generated_at: now().toISOString(),
      counts,
      page: { ...page, next_offset: more ? page.offset + services.length : null },
      services,
    };
  };
}

/**
 * GET /api/v1/services/{id}: one service with where it is listed and its last 20 probes. Most lookups are answered
 * before routing (api/fast-detail.ts); this answers the rest, ids to decode and unknown services among them.
 */
export function getServiceRoute(details: DetailCache) {
  return (event: H3Event): JsonBytes => {
    const id = (getRouterParam(event, 'id', { decode: true }) ?? '').toLowerCase();
    const detail = details.read(id);
    if (detail === null) {
      throw apiError(404, 'not_found', `No service with id "${id.slice(0, 100)}". Find ids at /api/v1/services.`);
    }
    return new JsonBytes(detail.body, detail.digest);
  };
}

/** GET /api/v1/stats: census counts for the whole index. */
export function statsRoute({ db, now }: AppDeps) {
  return () => ({ generated_at: now().toISOString(), ...getStats(db) });
}
