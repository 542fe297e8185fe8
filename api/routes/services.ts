import { getQuery, getRouterParam, type H3Event } from 'h3';
import { listProbes } from '../../data/probes.ts';
import { listServices } from '../../data/service-list.ts';
import { getService, getStats, listSourceUrls } from '../../data/services.ts';
import type { AppDeps } from '../app.ts';
import { apiError } from '../errors.ts';
import { toFilters, toPage } from '../query.ts';
import type { ServiceDetail, ServiceList } from '../schemas.ts';

/** GET /api/v1/services: one page of services matching the filters, with counts over every match. */
export function listServicesRoute({ db, now }: AppDeps) {
  return (event: H3Event): ServiceList => {
    const query = getQuery(event);
    const page = toPage(query);
    const { counts, services } = listServices(db, toFilters(query), page);
    const nextOffset = page.offset + services.length;
    return {
      generated_at: now().toISOString(),
      counts,
      page: { ...page, next_offset: nextOffset < counts.total && services.length > 0 ? nextOffset : null },
      services,
    };
  };
}

/** GET /api/v1/services/{id}: one service with where it is listed and its last 20 probes. */
export function getServiceRoute({ db }: AppDeps) {
  return (event: H3Event): ServiceDetail => {
    const id = (getRouterParam(event, 'id', { decode: true }) ?? '').toLowerCase();
    const service = getService(db, id);
    if (!service) {
      throw apiError(404, 'not_found', `No service with id "${id.slice(0, 100)}". Find ids at /api/v1/services.`);
    }
    return { ...service, source_urls: listSourceUrls(db, id), probes: listProbes(db, id) };
  };
}

/** GET /api/v1/stats: census counts for the whole index. */
export function statsRoute({ db, now }: AppDeps) {
  return () => ({ generated_at: now().toISOString(), ...getStats(db) });
}
