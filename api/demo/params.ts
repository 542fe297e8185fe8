import { apiError } from '../errors.ts';
import type { DemoService, ParamSpec } from './define.ts';

export type DemoParams = Record<string, string | number>;

/**
 * The parameters of a call or purchase, validated against the service's definition with defaults applied.
 * Throws 400 `missing_query` naming the parameter when one is unknown, repeated, missing or outside its enum.
 * Query strings give every value as text; a purchase body may give an integer parameter as a number.
 * @example readDemoParams(webSearch, new URLSearchParams('query_id=x402-facilitators')) // { query_id: 'x402-facilitators', max_results: 5 }
 */
export function readDemoParams(service: DemoService, input: URLSearchParams | Record<string, unknown>): DemoParams {
  const given = input instanceof URLSearchParams ? fromQuery(input) : input;
  const names = Object.keys(service.params);
  for (const name of Object.keys(given)) {
    if (!names.includes(name)) {
      throw apiError(400, 'missing_query', `Unknown parameter "${name.slice(0, 50)}": ${service.id} takes ${describeNames(names)}.`);
    }
  }
  const params: DemoParams = {};
  for (const [name, spec] of Object.entries(service.params)) {
    const value = given[name];
    if (value === undefined || value === null || value === '') {
      if (spec.required) throw apiError(400, 'missing_query', `Missing required parameter "${name}": one of ${describeEnum(spec)}.`);
      params[name] = spec.default as string | number;
      continue;
    }
    params[name] = toEnumValue(name, spec, value);
  }
  return params;
}

/**
 * The query string of a call with these parameters, in definition order.
 * @example toQueryString(webSearch, { query_id: 'x402-facilitators', max_results: 5 }) // 'query_id=x402-facilitators&max_results=5'
 */
export function toQueryString(service: DemoService, params: DemoParams): string {
  return new URLSearchParams(Object.keys(service.params).map((name) => [name, String(params[name])])).toString();
}

function fromQuery(query: URLSearchParams): Record<string, string> {
  const given: Record<string, string> = {};
  for (const [name, value] of query) {
    if (name in given) throw apiError(400, 'missing_query', `Parameter "${name.slice(0, 50)}" is given more than once; give it once.`);
    given[name] = value;
  }
  return given;
}

function toEnumValue(name: string, spec: ParamSpec, value: unknown): string | number {
  const match = spec.enum.find((allowed) => (typeof value === 'string' || typeof value === 'number') && String(allowed) === String(value));
  if (match === undefined) {
    throw apiError(400, 'missing_query', `Parameter "${name}" must be one of ${describeEnum(spec)}; got ${describeValue(value)}.`);
  }
  return match;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return `"${String(value).slice(0, 50)}"`;
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function describeEnum(spec: ParamSpec): string {
  return spec.enum.join(', ');
}

function describeNames(names: string[]): string {
  return names.length === 1 ? `only "${names[0]}"` : names.map((name) => `"${name}"`).join(', ');
}
