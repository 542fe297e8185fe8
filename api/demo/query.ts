import { z } from 'zod';

type Value = string | number;

/** What the catalog tells of a demo service's parameter: its closed set of values, its example and its default. */
export interface DemoParam {
  values: readonly Value[];
  example: Value;
  default?: Value;
}

/** The catalog's facts of every demo parameter, kept beside its schema so they are written once. */
export const DEMO_PARAMS = z.registry<DemoParam>();

/**
 * A demo service's parameter: one of a closed set of values, required unless it has a default. A query string gives
 * every value as text, so an integer parameter is read from its digits and answered as the integer. An empty value, or
 * null, is no value. Only a parameter with a default is read through `toGiven` (which also takes a purchase's JSON
 * number): a read-before-validation makes OpenAPI call a parameter optional.
 * @example oneOf([3, 5], { description: 'How many results.', example: 3, default: 5 })
 */
export function oneOf<const V extends readonly [Value, ...Value[]]>(
  values: V,
  spec: { description: string; example: V[number]; default?: V[number] },
) {
  const texts = values.map(String) as [string, ...string[]];
  const text = z.enum(texts, { error: (issue) => describeRefusal(issue.input, texts) });
  const read = spec.default === undefined ? text : z.preprocess(toGiven, text.optional());
  const schema = read
    .transform((given): V[number] => (given === undefined ? spec.default! : values.find((value) => String(value) === given)!))
    .meta({ description: spec.description });
  DEMO_PARAMS.add(schema, { values, example: spec.example, ...(spec.default === undefined ? {} : { default: spec.default }) });
  return schema;
}

/**
 * A demo service's query: these parameters and no other, so a mistyped name is refused rather than ignored.
 * @example demoQuery({ asset: oneOf(['BTC', 'ETH'], { description: 'The asset to quote.', example: 'ETH' }) })
 */
export function demoQuery<const S extends z.core.$ZodLooseShape>(shape: S) {
  const names = Object.keys(shape).map((name) => `"${name}"`).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `is not a parameter of this service, which takes ${names}` : undefined),
  });
}

/**
 * The query string of a call with these parameters, in the query's order.
 * @example toQueryString(webSearch.query, { query_id: 'x402-facilitators', max_results: 5 }) // 'query_id=x402-facilitators&max_results=5'
 */
export function toQueryString(query: z.ZodObject, params: Record<string, Value>): string {
  return new URLSearchParams(Object.keys(query.shape).map((name) => [name, String(params[name])])).toString();
}

/**
 * Every parameter of a query with its catalog facts, in the query's order.
 * @example listDemoParams(marketData.query) // [{ name: 'asset', description: 'The asset to quote.', values: ['BTC', 'ETH'], example: 'ETH' }]
 */
export function listDemoParams(query: z.ZodObject): (DemoParam & { name: string; description: string })[] {
  return Object.entries(query.shape).map(([name, schema]) => {
    const param = DEMO_PARAMS.get(schema as z.ZodType);
    if (!param) throw new Error(`the demo parameter "${name}" is not declared with oneOf`);
    return { name, description: String((schema as z.ZodType).meta()?.description ?? ''), ...param };
  });
}

function toGiven(value: unknown): unknown {
  if (value === '' || value === null) return undefined;
  return typeof value === 'number' ? String(value) : value;
}

function describeRefusal(input: unknown, texts: readonly string[]): string {
  const allowed = `one of ${texts.join(', ')}`;
  if (input === undefined || input === '' || input === null) return `is required: ${allowed}`;
  if (Array.isArray(input)) return `must be a single value, ${allowed}`;
  const got = typeof input === 'string' || typeof input === 'number' ? `"${String(input).slice(0, 50)}"` : `a ${typeof input}`;
  return `must be ${allowed}; got ${got}`;
}
