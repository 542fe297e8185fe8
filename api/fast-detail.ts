import type { ServerRequest } from 'srvx';
import type { DetailCache } from '../data/detail-cache.ts';
import { JsonBytes, type HttpLayer } from './http.ts';

/** A fetch handler: what srvx serves and what tests call in process. */
export type Fetch = (request: ServerRequest) => Response | Promise<Response>;

const DETAIL_PATH = '/api/v1/services/';
/** An id as the index makes them (crawler/normalize.ts `toServiceId`), in any case. */
const PLAIN_ID = /^[a-z0-9-]+$/i;
/** `/api/v1/services/batch` is the batch route, whatever the cache holds. */
const BATCH = 'batch';

/*
 * The lookup agents make most, GET (or HEAD) /api/v1/services/{id}, answered before h3 builds an event, routes it
 * and runs the middleware chain: the same token spent, headers and bytes as the routed answer (api/http.ts renders
 * both, from the same cache), for about a fifth less CPU a request (BENCHMARKS.md). Every other request, and every
 * lookup this does not answer (an id with other characters or escapes, an unknown service, a client over its
 * limit), goes to the router unchanged, which answers it as it always has.
 */

/**
 * @example const fetch = withFastDetail(h3.fetch, layer, details); await fetch(new Request('http://x/api/v1/services/a-com'));
 */
export function withFastDetail(routed: Fetch, layer: HttpLayer, details: DetailCache): Fetch {
  const answer = (request: ServerRequest): Response | null => {
    const id = request.method === 'GET' || request.method === 'HEAD' ? toPlainDetailId(request.url) : null;
    const detail = id === null ? null : details.read(id);
    return detail && layer.answerStored(request, new JsonBytes(detail.body, detail.digest));
  };
  return (request) => answerOrNull(answer, request) ?? routed(request);
}

/**
 * A failed read (a locked or broken database) is the router's to answer: it fails there again, inside the HTTP
 * layer, which renders it in the Error shape like any other failure.
 */
function answerOrNull(answer: (request: ServerRequest) => Response | null, request: ServerRequest): Response | null {
  try {
    return answer(request);
  } catch {
    return null;
  }
}

/** The lower-cased id of a detail URL whose id is plain (nothing to decode), else null. */
export function toPlainDetailId(url: string): string | null {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  if (pathStart === -1 || !url.startsWith(DETAIL_PATH, pathStart)) return null;
  const queryStart = url.indexOf('?', pathStart);
  const id = url.slice(pathStart + DETAIL_PATH.length, queryStart === -1 ? undefined : queryStart);
  return PLAIN_ID.test(id) && id !== BATCH ? id.toLowerCase() : null;
}
