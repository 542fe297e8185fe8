/**
 * How to call an endpoint (domain/schemas.ts `Input`, `Output`), read from what directories publish:
 * - Bazaar v1 `accepts[].outputSchema` `{ input: { type, method, queryParams | query_params, bodyFields | body_fields,
 *   headerFields | header_fields, pathParams, bodyType | body_type }, output }`: field maps (`name -> { type,
 *   description, required, enum, default }`) become object schemas;
 * - Bazaar v2 `extensions.bazaar` `{ info: { input, output }, schema, routeTemplate }`: the parts of `schema` under
 *   `properties.input.properties` are the schemas, the values in `info.input` the example;
 * - a route with `:params` (mpp.dev paths, `routeTemplate`): its path schema.
 * Every schema passes crawler/json-schema.ts or is dropped whole; examples are kept within the same size. Pure.
 */
import type { CallInput, CallOutput } from '../domain/schemas.ts';
import { toBoundedJson, toValidSchema, type JsonSchema } from './json-schema.ts';
import { isRecord, readMethod, readText } from './sources/read.ts';

const BODY_TYPES = ['json', 'form-data', 'text'] as const;
const JSON_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** Keywords a field of a v1 field map may carry over to its schema as they are. */
const FIELD_KEYWORDS = ['description', 'enum', 'default', 'format', 'items', 'properties', 'minimum', 'maximum', 'pattern', 'examples'];

/** The first value of the keys a shape may spell a field with (`queryParams`, `query_params`). */
function pick(record: Record<string, unknown>, ...keys: string[]): unknown {
  for (const key of keys) if (record[key] !== undefined) return record[key];
  return undefined;
}

function toFieldSchema(field: unknown): JsonSchema {
  if (!isRecord(field)) return typeof field === 'string' && JSON_TYPES.has(field) ? { type: field } : {};
  const schema: JsonSchema = {};
  if (typeof field.type === 'string' && JSON_TYPES.has(field.type.toLowerCase())) schema.type = field.type.toLowerCase();
  for (const key of FIELD_KEYWORDS) if (field[key] !== undefined) schema[key] = field[key];
  return schema;
}

/**
 * An object schema from a v1 field map; a map that already is a schema (`type: object` with `properties`) is kept.
 * @example toObjectSchema({ q: { type: 'string', required: true } }) // { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }
 */
export function toObjectSchema(fields: unknown): JsonSchema | null {
  if (!isRecord(fields) || Object.keys(fields).length === 0) return null;
  if (fields.type === 'object' && isRecord(fields.properties)) return toValidSchema(fields);
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    properties[name] = toFieldSchema(field);
    if (isRecord(field) && field.required === true) required.push(name);
  }
  return toValidSchema({ type: 'object', properties, ...(required.length > 0 ? { required } : {}) });
}

function toBodyType(value: unknown): CallInput['body_type'] {
  const text = readText(value)?.toLowerCase();
  if (text === 'multipart' || text === 'multipart/form-data' || text === 'form') return 'form-data';
  return BODY_TYPES.find((type) => type === text) ?? null;
}

/** The names of a route's `:params` and `{params}`, in order. */
export function readRouteParams(route: string): string[] {
  return [...route.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => (match[1] ?? match[2])!);
}

/** The path schema of a route's params (each a required string), or null when it has none. */
export function toPathSchema(route: string): JsonSchema | null {
  const names = readRouteParams(route);
  if (names.length === 0) return null;
  return { type: 'object', properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])), required: names };
}

const emptyInput = (method: string | null): CallInput => ({
  type: 'http', method, query: null, path: null, headers: null, body_type: null, body: null, tool: null, example: null,
});

/** Whether an input says anything beyond its type and method: only then is it a known input (`has_input`). */
function saysMore(input: CallInput): boolean {
  return [input.query, input.path, input.headers, input.body, input.tool, input.example].some((part) => part !== null);
}

/**
 * The input and output a Bazaar v1 `outputSchema` describes.
 * @example readBazaarV1({ input: { type: 'http', method: 'GET', queryParams: { q: { type: 'string', required: true } } } })
 */
export function readBazaarV1(outputSchema: unknown, route: string | null): { input: CallInput | null; output: CallOutput | null } {
  if (!isRecord(outputSchema)) return { input: null, output: null };
  const given = isRecord(outputSchema.input) ? outputSchema.input : {};
  const method = readMethod(given.method);
  const input: CallInput = {
    ...emptyInput(method),
    query: toObjectSchema(pick(given, 'queryParams', 'query_params')),
    headers: toObjectSchema(pick(given, 'headerFields', 'header_fields', 'headers')),
    path: toObjectSchema(pick(given, 'pathParams', 'path_params')) ?? (route === null ? null : toPathSchema(route)),
    body: toObjectSchema(pick(given, 'bodyFields', 'body_fields') ?? (isRecord(given.properties) ? given.properties : undefined)),
  };
  if (input.body !== null) input.body_type = toBodyType(pick(given, 'bodyType', 'body_type')) ?? 'json';
  const outputSchemaPart = toObjectSchema(outputSchema.output);
  return {
    input: saysMore(input) ? input : null,
    output: outputSchemaPart === null ? null : { mime_type: null, schema: outputSchemaPart, example: undefined },
  };
}

/** The schema of one part of a v2 `schema` (`properties.input.properties.<part>`). */
function readPartSchema(schema: unknown, section: 'input' | 'output', part: string): JsonSchema | null {
  if (!isRecord(schema) || !isRecord(schema.properties)) return null;
  const sectionSchema = schema.properties[section];
  if (!isRecord(sectionSchema) || !isRecord(sectionSchema.properties)) return null;
  return toValidSchema(sectionSchema.properties[part]);
}

function toExample(query: unknown, body: unknown): CallInput['example'] {
  const example: NonNullable<CallInput['example']> = {};
  const boundedQuery = isRecord(query) ? toBoundedJson(query) : undefined;
  const boundedBody = toBoundedJson(body);
  if (boundedQuery !== undefined) example.query = boundedQuery;
  if (boundedBody !== undefined) example.body = boundedBody;
  return Object.keys(example).length > 0 ? example : null;
}

/**
 * The input, output and route template a Bazaar v2 `extensions.bazaar` describes; an MCP tool reads its
 * `inputSchema` as the body.
 */
export function readBazaarV2(extension: unknown, mimeType: string | null): {
  input: CallInput | null; output: CallOutput | null; routeTemplate: string | null;
} {
  if (!isRecord(extension) || !isRecord(extension.info)) return { input: null, output: null, routeTemplate: null };
  const { info, schema } = extension;
  const given = isRecord(info.input) ? info.input : {};
  const routeTemplate = readRouteTemplate(extension.routeTemplate);
  let input: CallInput | null = null;
  if (given.type === 'mcp') {
    input = {
      ...emptyInput(null), type: 'mcp', tool: readText(given.toolName) ?? readText(given.tool),
      body: toValidSchema(given.inputSchema), body_type: 'json', example: toExample(undefined, given.example),
    };
  } else if (isRecord(info.input)) {
    input = {
      ...emptyInput(readMethod(given.method)),
      query: readPartSchema(schema, 'input', 'queryParams'),
      path: readPartSchema(schema, 'input', 'pathParams') ?? (routeTemplate === null ? null : toPathSchema(routeTemplate)),
      headers: readPartSchema(schema, 'input', 'headers'),
      body: readPartSchema(schema, 'input', 'body'),
      body_type: toBodyType(given.bodyType),
      example: toExample(given.queryParams, given.body),
    };
    if (input.body !== null && input.body_type === null) input.body_type = 'json';
  }
  const out = isRecord(info.output) ? info.output : null;
  const outputSchema = readPartSchema(schema, 'output', 'example');
  const example = out === null ? undefined : toBoundedJson(out.example);
  const output = out === null && outputSchema === null ? null : {
    mime_type: readText(out?.format) ?? mimeType, schema: outputSchema, ...(example === undefined ? {} : { example }),
  };
  return { input, output, routeTemplate };
}

/** A v2 `routeTemplate` as the Bazaar spec allows it (`^/[a-zA-Z0-9_/:.\-~%]+$`, no `..`, no `://`), else null. */
export function readRouteTemplate(value: unknown): string | null {
  const text = readText(value);
  if (text === null || text.length > 500 || !/^\/[a-zA-Z0-9_/:.\-~%]+$/.test(text) || text.includes('..') || text.includes('://')) return null;
  return text;
}

/**
 * The input a bare route gives (mpp.dev: a method and a path with `:params`), or null when it names no params: a
 * method alone is the endpoint's `method`, not a known input.
 */
export function readRouteInput(method: string | null, route: string): CallInput | null {
  const path = toPathSchema(route);
  return path === null ? null : { ...emptyInput(method), path };
}
