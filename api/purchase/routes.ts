import type { H3Event } from 'h3';
import type { AppDeps, Route } from '../app.ts';
import { demoServiceRoutes } from '../demo/routes.ts';

/**
 * The handlers, loaded on the first purchase request rather than at start: they bring viem, about 18 MB of
 * memory (BENCHMARKS.md) that the index's own routes never use.
 */
type Handlers = typeof import('./handlers.ts');

/** A route handler that loads the handlers module on its first call, then calls `name` from it. */
function loaded(name: keyof Handlers, deps: AppDeps): Route['handler'] {
  return async (event: H3Event) => (await import('./handlers.ts'))[name](deps, event);
}

/**
 * The purchase preview's routes: the catalog, purchases and their approval, and the demo services themselves.
 * @example const routes = [...indexRoutes, ...purchaseRoutes(deps)];
 */
export function purchaseRoutes(deps: AppDeps): Route[] {
  return [
    { method: 'GET', path: '/api/v1/purchase', handler: loaded('catalogRoute', deps) },
    { method: 'GET', path: '/api/v1/purchase/services/:id', handler: loaded('catalogServiceRoute', deps) },
    { method: 'POST', path: '/api/v1/purchases', handler: loaded('createPurchaseRoute', deps) },
    { method: 'GET', path: '/api/v1/purchases/:id', handler: loaded('getPurchaseRoute', deps) },
    { method: 'POST', path: '/api/v1/purchases/:id/approval', handler: loaded('approvePurchaseRoute', deps) },
    ...demoServiceRoutes(deps),
  ];
}
