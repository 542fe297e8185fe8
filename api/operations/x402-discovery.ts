import type { z } from 'zod';
import { listDiscoveredResources, type DiscoveredResource, type DiscoveryFilters } from '../../data/x402-discovery.ts';
import { toExampleObject } from '../../domain/call-example.ts';
import type { Endpoint } from '../../domain/schemas.ts';
import { listX402ResourcesDeclaration, PAGE, searchX402ResourcesDeclaration, type Item } from '../declarations/x402-discovery.ts';
import { loadOnce } from '../load-once.ts';
import { defineOperation } from '../operation.ts';

/*
 * The index as a Bazaar any x402 client reads (`withBazaar(new HTTPFacilitatorClient({ url: BASE_URL + '/x402' }))`):
 * the discovery API's two routes and shapes, over every x402 endpoint whose last check found a challenge. An item's
 * `extensions.bazaar` is made by `@x402/extensions`' own `declareDiscoveryExtension` from the endpoint's input and
 * output, and answered only when its `validateDiscoveryExtension` accepts it: third-party schemas and examples that
 * disagree are left out rather than answered broken. The library is loaded on the first discovery request, so a
 * server that answers none does not hold its code.
 */

type BazaarLibrary = typeof import('@x402/extensions/bazaar');
const loadLibrary = loadOnce((): Promise<BazaarLibrary> => import('@x402/extensions/bazaar'));

const clampLimit = (limit: number) => Math.min(PAGE.max, Math.max(PAGE.min, limit));

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

export const listX402ResourcesOperation = defineOperation(listX402ResourcesDeclaration, async ({ query }, { deps }) => {
  const page = { limit: clampLimit(query.limit), offset: Math.max(0, query.offset) };
  const { total, resources } = listDiscoveredResources(deps.db, toFilters(query), page);
  const lib = await loadLibrary();
  return { x402Version: 2 as const, items: resources.map((found) => toItem(found, lib)), pagination: { ...page, total } };
});

export const searchX402ResourcesOperation = defineOperation(searchX402ResourcesDeclaration, async ({ query }, { deps }) => {
  const page = { limit: clampLimit(query.limit), offset: Math.max(0, query.cursor) };
  const { total, resources } = listDiscoveredResources(deps.db, toFilters(query), page);
  const lib = await loadLibrary();
  const next = page.offset + resources.length;
  return {
    x402Version: 2 as const, resources: resources.map((found) => toItem(found, lib)), partialResults: false,
    pagination: { limit: page.limit, cursor: next < total ? String(next) : null },
  };
});
