import { z } from 'zod';
import { toInteger, toText, toWords } from '../../domain/list-query.ts';
import { declareOperation, type OperationExample } from '../declaration.ts';

/*
 * The index as a Bazaar any x402 client reads (`withBazaar(new HTTPFacilitatorClient({ url: BASE_URL + '/x402' }))`):
 * the discovery API's two routes and shapes, over every x402 endpoint whose last check found a challenge.
 */

/** A discovery page's size: clamped into this range, as the x402 Bazaar does. */
export const PAGE = { min: 1, max: 100, default: 20 };

const filters = {
  type: z.preprocess(toText, z.string().optional()).meta({ description: 'http (the only type listed; any other matches nothing).' }),
  payTo: z.preprocess(toText, z.string().optional()).meta({ description: 'An accepts entry pays this address (any case).' }),
  scheme: z.preprocess(toText, z.string().optional()).meta({ description: 'An accepts entry has this scheme (exact, upto).' }),
  network: z.preprocess(toText, z.string().optional()).meta({ description: 'An accepts entry is on this network (CAIP-2 or v1 name).' }),
  extensions: z.preprocess(toText, z.string().optional()).meta({ description: 'bazaar: only resources with a known input.' }),
  limit: z.preprocess(toInteger, z.int().default(PAGE.default)).meta({ description: 'Page size 1-100, default 20 (clamped).' }),
};

export const Item = z.object({
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

export const listX402ResourcesDeclaration = declareOperation({
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
});

export const searchX402ResourcesDeclaration = declareOperation({
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
});
