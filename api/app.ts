import { H3, type H3Event } from 'h3';
import type { DB } from '../data/db.ts';
import type { Config } from './config.ts';
import { apiError } from './errors.ts';
import { createHttpLayer } from './http.ts';
import { createOpenApiDocument } from './openapi.ts';
import { createRateLimiter } from './ratelimit.ts';
import { createSiteHandler, type StaticSiteOptions } from './static.ts';
import { purchaseRoutes } from './purchase/routes.ts';
import { getBatchRoute, postBatchRoute } from './routes/batch.ts';
import { getServiceRoute, listServicesRoute, statsRoute } from './routes/services.ts';
import { getSubmissionRoute, submitRoute } from './routes/submit.ts';

/** What every route needs, passed in so tests can give their own. */
export interface AppDeps {
  db: DB;
  config: Config;
  now: () => Date;
  /** Host name resolution for submitted endpoints; the system resolver by default. */
  lookup?: (host: string) => Promise<string[]>;
  /** The built site to serve for non-API GET and HEAD paths (api/static.ts); without it they answer JSON 404s. */
  site?: StaticSiteOptions;
}

type Method = 'GET' | 'POST';
export interface Route {
  method: Method;
  path: string;
  handler: (event: H3Event) => unknown;
}

function toRoutes(deps: AppDeps): Route[] {
  const openapi = createOpenApiDocument(deps.config.baseUrl);
  return [
    { method: 'GET', path: '/api/v1/services', handler: listServicesRoute(deps) },
    { method: 'POST', path: '/api/v1/services/batch', handler: postBatchRoute(deps) },
    { method: 'GET', path: '/api/v1/services/batch', handler: getBatchRoute(deps) },
    { method: 'GET', path: '/api/v1/services/:id', handler: getServiceRoute(deps) },
    { method: 'GET', path: '/api/v1/stats', handler: statsRoute(deps) },
    { method: 'POST', path: '/api/v1/submit', handler: submitRoute(deps) },
    { method: 'GET', path: '/api/v1/submissions/:id', handler: getSubmissionRoute(deps) },
    { method: 'GET', path: '/openapi.json', handler: () => openapi },
    ...purchaseRoutes(deps),
  ];
}

/**
 * The whole HTTP app: every route, behind the one layer that rate-limits, adds CORS and cache headers and
 * renders errors; unknown paths answer 404 and known paths with a wrong method 405, both listing the paths.
 * @example const app = createApp({ db, config, now: () => new Date() }); await app.request('/api/v1/stats');
 */
export function createApp(deps: AppDeps): H3 {
  // A malformed percent-escape reaches the HTTP layer, which answers it in the Error shape with its usual headers.
  const app = new H3({ allowMalformedURL: true });
  const routes = toRoutes(deps);
  app.use(
    createHttpLayer({
      limiter: createRateLimiter(deps.config.rateLimit),
      rateLimit: deps.config.rateLimit,
      trustProxy: deps.config.trustProxy,
      nowMs: () => deps.now().getTime(),
    }),
  );
  for (const route of routes) {
    app.on(route.method, route.path, route.handler);
    if (route.method === 'GET') app.on('HEAD', route.path, route.handler);
  }
  const site = deps.site ? createSiteHandler(deps.site) : null;
  app.all('/**', (event) => {
    const page = event.req.method === 'GET' || event.req.method === 'HEAD';
    if (site && page && !isApiPath(event.url.pathname)) return site(event);
    throw unroutable(routes, event);
  });
  return app;
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

/** Everything under /api/ (and /openapi.json) answers JSON, never a page. */
function isApiPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/') || pathname === '/openapi.json';
}

function toPattern(path: string): RegExp {
  const literal = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${literal.replace(/:\w+/g, '[^/]+')}/?$`);
}
