import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DetailCache } from '../data/detail-cache.ts';
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
 * srvx wraps it in a web Request and h3 builds an event, routes it and runs the middleware chain: the same token
 * spent, headers and bytes as the routed answer, from the same cache (api/http.ts `replyStored` renders it), for
 * about a sixth more lookups a second than in front of h3 alone (BENCHMARKS.md). Every other request goes to srvx
 * and the router, and so does a lookup of an id with other characters or escapes, of an unknown service, by a client
 * over its limit or whose read failed, which the router answers without spending a second token.
 */

/**
 * @example server.on('request', withDetailLane(srvxHandler, layer, details));
 */
export function withDetailLane(routed: NodeHandler, layer: HttpLayer, details: DetailCache): NodeHandler {
  return (request, response) => {
    const method = request.method ?? 'GET';
    const id = method === 'GET' || method === 'HEAD' ? toPlainDetailId(request.url ?? '') : null;
    const reply = id === null ? null : layer.replyStored({
      request,
      method,
      ifNoneMatch: request.headers['if-none-match'],
      forwardedFor: toHeaderText(request.headers['x-forwarded-for']),
      socketAddress: request.socket.remoteAddress,
    }, () => details.read(id));
    if (!reply) return routed(request, response);
    if (reply.body !== null) reply.headers['content-length'] = String(Buffer.byteLength(reply.body));
    response.writeHead(reply.status, reply.headers);
    response.end(reply.body);
  };
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
