import type { ServerRequest } from 'srvx';
import type { DetailCache } from '../data/detail-cache.ts';
import type { HttpLayer } from './http.ts';

/** A fetch handler: what srvx serves and what tests call in process. */
export type Fetch = (request: ServerRequest) => Response | Promise<Response>;

const DETAIL_PATH = '/api/v1/services/';
/** An id as the index makes them (crawler/normalize.ts `toServiceId`), in any case. */
const PLAIN_ID = /^[a-z0-9-]+$/i;
/** `/api/v1/services/batch` is the batch route, whatever the cache holds. */
const BATCH = 'batch';

/*
 * The lookup agents make most, GET (or HEAD) /api/v1/services/{id}, answered before h3 builds an event, routes it
 * and runs the middleware chain: the same token spent, headers and bytes as the routed answer, from the same cache
 * (api/http.ts `answerStored` renders it, 429 and a failed read included), for about a fifth less CPU a request
 * (BENCHMARKS.md). Every other request goes to the router, and so does a lookup of an id with other characters or
 * escapes, or of an unknown service, which the router answers 404 without spending a second token.
 */

/**
 * @example const fetch = withFastDetail(h3.fetch, layer, details); await fetch(new Request('http://x/api/v1/services/a-com'));
 */
export function withFastDetail(routed: Fetch, layer: HttpLayer, details: DetailCache): Fetch {
  return (request) => {
    const id = request.method === 'GET' || request.method === 'HEAD' ? toPlainDetailId(request.url) : null;
    return (id !== null && layer.answerStored(request, () => details.read(id))) || routed(request);
  };
}

/** The lower-cased id of a detail URL whose id is plain (nothing to decode), else null. */
export function toPlainDetailId(url: string): string | null {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  if (pathStart === -1 || !url.startsWith(DETAIL_PATH, pathStart)) return null;
  const queryStart = url.indexOf('?', pathStart);
  const id = url.slice(pathStart + DETAIL_PATH.length, queryStart === -1 ? undefined : queryStart);
  return PLAIN_ID.test(id) && id !== BATCH ? id.toLowerCase() : null;
}
