import type { z } from 'zod';
import type { PriceSource } from './price-source.ts';

/** Who runs the demo services: the index itself. */
export const DEMO_OPERATOR = 'Payable-Service Index (testnet demo)';

/** What a demo service may use when it answers. */
export interface DemoContext {
  now: () => Date;
  priceSource: PriceSource;
}

/**
 * A demo service: what the catalog shows, its price and its answer. Its query (api/demo/query.ts) is the zod input of
 * its operation (api/operations/demo.ts), which validates a call and describes it in /openapi.json like any other.
 */
export interface DemoServiceDefinition<Q extends z.ZodObject, R extends object> {
  /** `index-demo-<name>`. */
  id: `index-demo-${string}`;
  name: string;
  description: string;
  operator: string;
  /** true: prepared output; false: a real call (the market data service). */
  simulated: boolean;
  /** Path on the staging origin, e.g. `/api/demo/services/web-search`. */
  path: `/api/demo/${string}`;
  /** Decimal USDC, e.g. '0.003'. */
  price: `${number}`;
  query: Q;
  /** Response field name -> type description, as the catalog shows it. */
  returns: Record<string, string>;
  examplePrompts: readonly string[];
  respond: (params: z.output<Q>, context: DemoContext) => R | Promise<R>;
}

/** A demo service with its parameter types erased, as the catalog, routes and purchases handle it. */
export interface DemoService extends Omit<DemoServiceDefinition<z.ZodObject, object>, 'respond'> {
  respond: (params: Record<string, unknown>, context: DemoContext) => object | Promise<object>;
}

/**
 * Declares a demo service with its answer's parameters typed from its query.
 * @example export const webSearch = defineDemoService({ id: 'index-demo-web-search', query: demoQuery({ ... }), respond: (p) => ... });
 */
export function defineDemoService<Q extends z.ZodObject, R extends object>(definition: DemoServiceDefinition<Q, R>): DemoService {
  return definition as unknown as DemoService;
}
