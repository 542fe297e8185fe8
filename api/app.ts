import { getQuery, getRouterParams, H3, toRequest, type H3Event } from 'h3';
import { serve, type Server, type ServerOptions, type ServerRequest } from 'srvx';
import type { DnsResolver } from '../net/dns.ts';
import type { DB } from '../data/db.ts';
import { badgeRoute } from './badge.ts';
import { readJsonObject } from './body.ts';
import type { Config } from './config.ts';
import { apiError } from './errors.ts';
import { withDetailLane, type NodeHandler } from './detail-lane.ts';
import { createHttpLayer, isApiPath, toRequestClient, type HttpLayer } from './http.ts';
import { loadOnce } from './load-once.ts';
import { mcpRoutes } from './mcp/http.ts';
import { readPart, type Operation, type OperationContext } from './operation.ts';
import { OPERATIONS } from './operations/index.ts';
import { toOwnOrigin } from './origin.ts';
import { createRateLimiter, type RateLimiter } from './ratelimit.ts';
import { createSiteHandler, type StaticSiteOptions } from './static.ts';
import type { DetailCacheOptions } from '../data/detail-cache.ts';
import { getPurchase } from '../data/purchases.ts';
import type { Purchase } from './purchase/schemas.ts';

/** What every route needs, passed in so tests can give their own. */
export interface AppDeps {
  db: DB;
  config: Config;
  now: () => Date;
  /**
   * Host name resolution for submitted endpoints and webhook receivers; by default the DNS_SERVERS (else the system's)
   * resolver. Both routes give each lookup a time limit and cap how many run (api/lookup-gate.ts).
   */
  lookup?: (host: string) => Promise<string[]>;
  /** TXT lookups for claims; by default the DNS_SERVERS (else the system's) resolver, with a time limit. */
  dns?: DnsResolver;
  /** How the detail lane holds answers in memory (data/detail-cache.ts); tests hold every answer they read. */
  detailCache?: DetailCacheOptions;
  /** Called after an owner's write (edit, delist, relist, recheck), so the pages follow (npm start re-renders them). */
  onDataChanged?: () => void;
  /** The built site to serve for non-API GET and HEAD paths (api/static.ts); without it they answer JSON 404s. */
  site?: StaticSiteOptions;
  /** The process's rate limiter, when apps replace one another in one process (a replica's); else one of its own. */
  limiter?: RateLimiter;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export interface Route {
  method: Method;
  path: string;
  handler: (event: H3Event) => unknown;
}

/** A fetch handler: what srvx serves and what tests call in process. */
export type Fetch = (request: ServerRequest) => Response | Promise<Response>;

/** The index as a fetch handler (what a server serves), with `request` to call it in process. */
export interface App {
  fetch: Fetch;
  /** A path (or a Request) answered in process, as h3's `app.request` does. */
  request(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The Node handler to serve on a socket: `routed` (srvx's, which calls `fetch`) behind the detail lane. */
  toNodeHandler(routed: NodeHandler): NodeHandler;
  /** The Node server's `clientError` listener: a request that is not readable HTTP, answered in the Error shape. */
  answerUnreadable: HttpLayer['answerUnreadable'];
}

/**
 * The app's OpenAPI document, made on its first request: a server no one asks for it does not hold the document or
 * its generator (about 1 MB of the heap, measured).
 */
const openApiDocument = (baseUrl: string | null) =>
  loadOnce(() => import('./openapi.ts').then(({ createOpenApiDocument }) => createOpenApiDocument(baseUrl)));

function toRoutes(runtime: Runtime, layer: HttpLayer): Route[] {
  const { deps } = runtime;
  return [
    ...OPERATIONS.map((operation) => toRoute(operation, runtime)),
    { method: 'GET', path: '/openapi.json', handler: openApiDocument(deps.config.baseUrl) },
    ...mcpRoutes(runtime, layer),
    badgeRoute(deps),
  ];
}

/** What every operation runs with, but what comes with each request (the origin, the app, the client, the URL). */
export type Runtime = Omit<OperationContext, 'origin' | 'app' | 'client' | 'url'>;

/**
 * An operation as an h3 route: each part of the request read by its schema (the body first read as a JSON object of
 * at most 64 KiB), then its handler; what it throws is answered in the Error shape by the HTTP layer.
 */
function toRoute(operation: Operation, runtime: Runtime): Route {
  return {
    method: operation.method,
    path: operation.path.replace(/\{(\w+)\}/g, ':$1'),
    handler: async (event: H3Event) => {
      const input = {
        path: readPart(operation, 'path', getRouterParams(event, { decode: true })),
        query: readPart(operation, 'query', getQuery(event)),
        headers: readPart(operation, 'headers', Object.fromEntries(event.req.headers)),
        body: operation.input.body ? readPart(operation, 'body', await readJsonObject(event)) : undefined,
      };
      const client = toRequestClient(event.req, runtime.deps.config.trustProxy);
      return operation.handle(input as never, { ...runtime, origin: toOwnOrigin(event, runtime.deps.config), app: event.app, client, url: event.url });
    },
  };
}

/**
 * The whole HTTP app: every route, behind the one layer that rate-limits, adds CORS and cache headers and
 * renders errors; unknown paths answer 404 and known paths with a wrong method 405, both listing the paths.
 * On a socket, service lookups are answered before routing when they can be (api/detail-lane.ts).
 * @example const app = createApp({ db, config, now: () => new Date() }); await app.request('/api/v1/stats');
 */
export function createApp(deps: AppDeps): App {
  // A malformed percent-escape reaches the HTTP layer, which answers it in the Error shape with its usual headers.
  const h3 = new H3({ allowMalformedURL: true });
  const layer = createHttpLayer({
    limiter: deps.limiter ?? createRateLimiter(deps.config.rateLimit),
    rateLimit: deps.config.rateLimit,
    trustProxy: deps.config.trustProxy,
    nowMs: () => deps.now().getTime(),
  });
  const routes = toRoutes({ deps }, layer);
  h3.use(layer.middleware);
  for (const route of routes) {
    h3.on(route.method, route.path, route.handler);
    if (route.method === 'GET') h3.on('HEAD', route.path, route.handler);
  }
  const site = deps.site ? createSiteHandler(deps.site, (id, event) => findPurchase(deps, id, toOwnOrigin(event, deps.config))) : null;
  h3.all('/**', async (event) => {
    const page = event.req.method === 'GET' || event.req.method === 'HEAD';
    const answer = site && page && !isApiPath(event.url.pathname) ? await site(event) : null;
    if (answer) return answer;
    throw unroutable(routes, event);
  });
  const fetch: Fetch = h3.fetch;
  return {
    fetch,
    request: async (input, init) => fetch(toRequest(input, init)),
    toNodeHandler: (routed) => withDetailLane(routed, layer, deps.db, deps.detailCache),
    answerUnreadable: layer.answerUnreadable,
  };
}

/**
 * The app on a socket, as `npm start` runs it: srvx's Node server (which h3's own `serve` wraps), its request
 * handler behind the detail lane (api/detail-lane.ts), and requests Node cannot read answered in the Error shape.
 * @example const server = serveApp(app, { hostname: '127.0.0.1', port: 0 }); await server.ready();
 */
export function serveApp(app: App, options: Omit<ServerOptions, 'fetch'>): Server {
  const server = serve({ silent: true, ...options, fetch: app.fetch });
  const node = server.node;
  if (!node?.server) throw new Error('srvx gave no Node server to serve the app on');
  const routed = node.handler as NodeHandler;
  node.server.off('request', routed);
  node.server.on('request', app.toNodeHandler(routed));
  node.server.on('clientError', app.answerUnreadable);
  return server;
}

function unroutable(routes: Route[], event: H3Event) {
  const endpoints = [...new Set(routes.map((route) => route.path.replace(/:(\w+)/g, '{$1}')))];
  const allowed = routes.filter((route) => toPattern(route.path).test(event.url.pathname)).map((route) => route.method);
  if (allowed.length > 0) {
    const allow = [...new Set([...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])].join(', ');
    return apiError(405, 'not_found', `${event.req.method} is not allowed here; use ${allow}.`, {
      endpoints,
      headers: { allow },
    });
  }
  return apiError(404, 'not_found', `No such path. The paths that exist are listed in "endpoints".`, { endpoints });
}

function toPattern(path: string): RegExp {
  const literal = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${literal.replace(/:\w+/g, '[^/]+')}/?$`);
}

/** A purchase as its approval page shows it; the view (with viem) loads on the first one, as the purchase routes do. */
async function findPurchase(deps: AppDeps, id: string, origin: string): Promise<Purchase | null> {
  const record = getPurchase(deps.db, id, deps.now());
  if (!record) return null;
  const { toPurchaseView } = await import('./purchase/view.ts');
  return toPurchaseView(record, origin);
}
