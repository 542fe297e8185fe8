import type { IncomingMessage, ServerResponse } from 'node:http';
import { createDetailCache, type CachedDetail, type DetailCacheOptions } from '../data/detail-cache.ts';
import type { DB } from '../data/db.ts';
import type { HttpLayer } from './http.ts';

/** A Node request handler: what srvx hands `node:http`, and what the detail lane puts in front of it. */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

const DETAIL_PATH = '/api/v1/services/';
/** An id as the index makes them (domain/service-id.ts `toServiceId`), in any case. */
const PLAIN_ID = /^[a-z0-9-]+$/i;
/** `/api/v1/services/batch` is the batch route, whatever the cache holds. */
const BATCH = 'batch';

/*
 * The lookup agents make most, GET (or HEAD) /api/v1/services/{id}, answered from the Node request itself, before
 * srvx wraps it in a web Request and h3 builds an event, routes it and runs the middleware chain, from answers held in
 * memory (data/detail-cache.ts): the same token spent, headers and bytes as the routed answer (the HTTP layer's
 * `replyStored` renders it). The routed operation answers the same lookup from SQLite, and it alone answers what
 * the lane does not: an id with other characters or escapes, an unknown service, a read that failed, a client over
 * its limit (the lane spends a token only on an answer it sends). What the lane costs and buys: docs/decisions.md.
 */

/**
 * The app's Node handler: `routed` (srvx's), behind the detail lane.
 * @example server.on('request', withDetailLane(srvxHandler, layer, db));
 */
export function withDetailLane(routed: NodeHandler, layer: HttpLayer, db: DB, cache?: DetailCacheOptions): NodeHandler {
  const details = createDetailCache(db, cache);
  return (request, response) => {
    const method = request.method ?? 'GET';
    const id = method === 'GET' || method === 'HEAD' ? toPlainDetailId(request.url ?? '') : null;
    const answer = id === null ? null : readHeld(details.read, id);
    const reply = answer && layer.replyStored({
      method,
      ifNoneMatch: request.headers['if-none-match'],
      forwardedFor: toHeaderText(request.headers['x-forwarded-for']),
      socketAddress: request.socket.remoteAddress,
    }, answer);
    if (!reply) return routed(request, response);
    if (reply.body !== null) reply.headers['content-length'] = String(Buffer.byteLength(reply.body));
    response.writeHead(reply.status, reply.headers);
    response.end(reply.body);
  };
}

/** The answer held or read for `id`; null when there is none or the read failed (the router reads again, and says why). */
function readHeld(read: (id: string) => CachedDetail | null, id: string): CachedDetail | null {
  try {
    return read(id);
  } catch {
    return null;
  }
}

/**
 * The lower-cased id of a detail request's target (a path, or an absolute URL) whose id is plain (nothing to
 * decode), else null.
 * @example toPlainDetailId('/api/v1/services/API-Example-com?x=1'); // 'api-example-com'
 */
export function toPlainDetailId(target: string): string | null {
  const pathStart = target.startsWith('/') ? 0 : target.indexOf('/', target.indexOf('//') + 2);
  if (pathStart === -1 || !target.startsWith(DETAIL_PATH, pathStart)) return null;
  const queryStart = target.indexOf('?', pathStart);
  const id = target.slice(pathStart + DETAIL_PATH.length, queryStart === -1 ? undefined : queryStart);
  return PLAIN_ID.test(id) && id !== BATCH ? id.toLowerCase() : null;
}

const toHeaderText = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;
