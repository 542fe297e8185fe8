import type { AppDeps, Route } from '../app.ts';
import { demoServiceRoutes } from '../demo/routes.ts';

/**
 * The handlers, loaded on the first purchase request rather than at start: they bring viem, about 18 MB of
 * memory (BENCHMARKS.md) that the index's own routes never use.
 */
const handlers = () => import('./handlers.ts');

/**
 * The purchase preview's routes: the catalog, purchases and their approval, and the demo services themselves.
 * @example const routes = [...indexRoutes, ...purchaseRoutes(deps)];
 */
export function purchaseRoutes(deps: AppDeps): Route[] {
  return [
    { method: 'GET', path: '/api/v1/purchase', handler: async (event) => (await handlers()).catalogRoute(deps, event) },
    { method: 'GET', path: '/api/v1/purchase/services/:id', handler: async (event) => (await handlers()).catalogServiceRoute(deps, event) },
    { method: 'POST', path: '/api/v1/purchases', handler: async (event) => (await handlers()).createPurchaseRoute(deps, event) },
    { method: 'GET', path: '/api/v1/purchases/:id', handler: async (event) => (await handlers()).getPurchaseRoute(deps, event) },
    { method: 'POST', path: '/api/v1/purchases/:id/approval', handler: async (event) => (await handlers()).approvePurchaseRoute(deps, event) },
    ...demoServiceRoutes(deps),
  ];
}
