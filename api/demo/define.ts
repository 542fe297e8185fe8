import type { PriceSource } from './price-source.ts';

/** Who runs the demo services: the index itself. */
export const DEMO_OPERATOR = 'Payable-Service Index (testnet demo)';

/** One query parameter of a demo service: a closed set of values, required or with a default. */
export interface ParamSpec<V extends string | number = string | number> {
  description: string;
  enum: readonly V[];
  required?: true;
  default?: V;
  example: V;
}

/** The parameters after validation: every one present (given, or its default). */
export type ParamValues<P extends Record<string, ParamSpec>> = { [K in keyof P]: P[K]['enum'][number] };

/** What a demo service may use when it answers. */
export interface DemoContext {
  now: () => Date;
  priceSource: PriceSource;
}

/**
 * The one declarative definition of a demo service. It drives the catalog entry, the parameter validation,
 * the x402 challenge (price) and the answer; nothing about a service is written anywhere else.
 */
export interface DemoServiceDefinition<P extends Record<string, ParamSpec>, R extends object> {
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
  params: P;
  /** Response field name -> type description, as the catalog shows it. */
  returns: Record<string, string>;
  examplePrompts: readonly string[];
  respond: (params: ParamValues<P>, context: DemoContext) => R | Promise<R>;
}

/** A demo service with its parameter types erased, as the catalog, routes and purchases handle it. */
export interface DemoService extends Omit<DemoServiceDefinition<Record<string, ParamSpec>, object>, 'respond'> {
  respond: (params: Record<string, string | number>, context: DemoContext) => object | Promise<object>;
}

/**
 * Declares a demo service, checking that every parameter is either required or has a default in its enum.
 * @example export const webSearch = defineDemoService({ id: 'index-demo-web-search', params: { ... }, respond: (p) => ... });
 */
export function defineDemoService<const P extends Record<string, ParamSpec>, R extends object>(
  definition: DemoServiceDefinition<P, R>,
): DemoService {
  for (const [name, spec] of Object.entries(definition.params)) {
    const values: readonly (string | number)[] = spec.enum;
    if (spec.required === undefined && (spec.default === undefined || !values.includes(spec.default))) {
      throw new Error(`${definition.id}: parameter "${name}" needs required: true or a default from its enum`);
    }
    if (!values.includes(spec.example)) throw new Error(`${definition.id}: the example of "${name}" is not in its enum`);
  }
  return definition as unknown as DemoService;
}
