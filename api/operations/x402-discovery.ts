import { z } from 'zod';
import { listDiscoveredResources, type DiscoveredResource, type DiscoveryFilters } from '../../data/x402-discovery.ts';
import { toInteger, toText, toWords } from '../../domain/list-query.ts';
import { toExampleObject } from '../../domain/call-example.ts';
import type { Endpoint } from '../../domain/schemas.ts';
import { defineOperation, type OperationExample } from '../operation.ts';

/*
 * The index as a Bazaar any x402 client reads (`withBazaar(new HTTPFacilitatorClient({ url: BASE_URL + '/x402' }))`):
 * the discovery API's two routes and shapes, over every x402 endpoint whose last check found a challenge. An item's
 * `extensions.bazaar` is made by `@x402/extensions`' own `declareDiscoveryExtension` from the endpoint's input and
 * output, and answered only when its `validateDiscoveryExtension` accepts it: third-party schemas and examples that
 * disagree are left out rather than answered broken. The library is loaded on the first discovery request: every
 * server held its code (about 12 MB of RSS) otherwise.
 */

type BazaarLibrary = typeof import('@x402/extensions/bazaar');
let library: Promise<BazaarLibrary> | undefined;
const loadLibrary = () => (library ??= import('@x402/extensions/bazaar'));

const PAGE = { min: 1, max: 100, default: 20 };
const clampLimit = (limit: number) => Math.min(PAGE.max, Math.max(PAGE.min, limit));

const filters = {
  type: z.preprocess(toText, z.string().optional()).meta({ description: 'http (the only type listed; any other matches nothing).' }),
  payTo: z.preprocess(toText, z.string().optional()).meta({ description: 'An accepts entry pays this address (any case).' }),
  scheme: z.preprocess(toText, z.string().optional()).meta({ description: 'An accepts entry has this scheme (exact, upto).' }),
  network: z.preprocess(toText, z.string().optional()).meta({ description: 'An accepts entry is on this network (CAIP-2 or v1 name).' }),
  extensions: z.preprocess(toText, z.string().optional()).meta({ description: 'bazaar: only resources with a known input.' }),
  limit: z.preprocess(toInteger, z.int().default(PAGE.default)).meta({ description: 'Page size 1-100, default 20 (clamped).' }),
};

const Item = z.object({
  resource: z.string(),
  type: z.literal('http'),
  x402Version: z.int(),
  accepts: z.array(z.record(z.string(), z.unknown())).meta({ description: 'As the last challenge stated them.' }),
  lastUpdated: z.string().meta({ description: 'When that challenge was seen (ISO 8601).' }),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  serviceName: z.string(),
  tags: z.array(z.string()),
  extensions: z.record(z.string(), z.unknown()).optional().meta({ description: 'bazaar: info and schema, where the input is known.' }),
}).meta({ id: 'DiscoveryResource' });

/**
 * The input as declareDiscoveryExtension takes it: its query or body with their schema, and the example the directory
 * gave, else one made from the schema (domain/call-example.ts).
 */
function toDeclaration(input: NonNullable<Endpoint['input']>, output: Endpoint['output']): Record<string, unknown> {
  const hasBody = input.body !== null || ['POST', 'PUT', 'PATCH'].includes(input.method ?? '');
  const example = input.example ?? {};
  return {
    ...(hasBody
      ? { bodyType: input.body_type ?? 'json', input: example.body ?? toExampleObject(input.body), ...(input.body ? { inputSchema: input.body } : {}) }
      : { input: example.query ?? toExampleObject(input.query), ...(input.query ? { inputSchema: input.query } : {}) }),
    ...(input.path ? { pathParamsSchema: input.path } : {}),
    ...(output ? { output: { ...(output.example === undefined ? {} : { example: output.example }), ...(output.schema ? { schema: output.schema } : {}) } } : {}),
  };
}

/** The endpoint's `extensions.bazaar`, or null when its input is unknown or the validator refuses what it makes. */
export function toBazaarExtension(endpoint: Endpoint, lib: BazaarLibrary): Record<string, unknown> | null {
  const { declareDiscoveryExtension, isValidRouteTemplate, validateDiscoveryExtension } = lib;
  const { input } = endpoint;
  if (input === null || input.type !== 'http' || input.method === null) return null;
  try {
    const { bazaar } = declareDiscoveryExtension(toDeclaration(input, endpoint.output) as never) as unknown as Record<string, Record<string, unknown>>;
    if (!bazaar) return null;
    (bazaar.info as { input: Record<string, unknown> }).input.method = input.method;
    if (endpoint.route_template !== null && isValidRouteTemplate(endpoint.route_template)) bazaar.routeTemplate = endpoint.route_template;
    return validateDiscoveryExtension(bazaar as never).valid ? bazaar : null;
  } catch {
    return null;
  }
}

function toItem(found: DiscoveredResource, lib: BazaarLibrary): z.infer<typeof Item> {
  const { endpoint } = found;
  const bazaar = toBazaarExtension(endpoint, lib);
  return {
    resource: endpoint.url,
    type: 'http',
    x402Version: found.x402Version,
    accepts: found.accepts,
    lastUpdated: found.lastUpdated,
    ...(endpoint.description === null ? {} : { description: endpoint.description }),
    ...(endpoint.output?.mime_type ? { mimeType: endpoint.output.mime_type } : {}),
    serviceName: found.serviceName,
    tags: endpoint.tags,
    ...(bazaar === null ? {} : { extensions: { bazaar } }),
  };
}

function toFilters(query: Record<string, unknown>): DiscoveryFilters {
  const keys = ['type', 'payTo', 'scheme', 'network', 'extensions', 'query'] as const;
  return Object.fromEntries(keys.flatMap((key) => (typeof query[key] === 'string' ? [[key, query[key]]] : [])));
}

export const listX402ResourcesOperation = defineOperation({
  id: 'listX402Resources',
  method: 'GET',
  path: '/x402/discovery/resources',
  group: 'index',
  summary: 'The x402 Bazaar discovery list: every x402 endpoint whose last check found a challenge, as any x402 client reads it.',
  input: {
    query: z.object({
      ...filters,
      offset: z.preprocess(toInteger, z.int().default(0)).meta({ description: 'Resources to skip, default 0.' }),
    }),
  },
  output: z.object({
    x402Version: z.literal(2),
    items: z.array(Item),
    pagination: z.object({ limit: z.int(), offset: z.int(), total: z.int() }),
  }).meta({ id: 'DiscoveryResourcesResponse' }),
  errors: {},
  examples: (): OperationExample[] => [{ query: { type: 'http', limit: '20' } }, { query: { scheme: 'exact', network: 'eip155:8453' } }],
  handle: async ({ query }, { deps }) => {
    const page = { limit: clampLimit(query.limit), offset: Math.max(0, query.offset) };
    const { total, resources } = listDiscoveredResources(deps.db, toFilters(query), page);
    const lib = await loadLibrary();
    return { x402Version: 2 as const, items: resources.map((found) => toItem(found, lib)), pagination: { ...page, total } };
  },
});

export const searchX402ResourcesOperation = defineOperation({
  id: 'searchX402Resources',
  method: 'GET',
  path: '/x402/discovery/search',
  group: 'index',
  summary: 'The x402 Bazaar discovery search: the same resources, every word of query in their text, with a cursor.',
  input: {
    query: z.object({
      query: z.preprocess(toWords, z.string().optional()).meta({ description: "Words, each in the resource's or its service's text." }),
      ...filters,
      cursor: z.preprocess(toInteger, z.int().default(0)).meta({ description: 'From the last page\'s pagination.cursor.' }),
    }),
  },
  output: z.object({
    x402Version: z.literal(2),
    resources: z.array(Item),
    partialResults: z.boolean(),
    pagination: z.object({ limit: z.int(), cursor: z.string().nullable() }),
  }).meta({ id: 'DiscoverySearchResponse' }),
  errors: {},
  examples: () => [{ query: { query: 'weather', limit: '10' } }],
  handle: async ({ query }, { deps }) => {
    const page = { limit: clampLimit(query.limit), offset: Math.max(0, query.cursor) };
    const { total, resources } = listDiscoveredResources(deps.db, toFilters(query), page);
    const lib = await loadLibrary();
    const next = page.offset + resources.length;
    return {
      x402Version: 2 as const, resources: resources.map((found) => toItem(found, lib)), partialResults: false,
      pagination: { limit: page.limit, cursor: next < total ? String(next) : null },
    };
  },
});
