import { z } from 'zod';
import { ServiceListQuery } from '../../domain/list-query.ts';
import { BatchResult, ServiceDetail, ServiceList, Stats } from '../../domain/schemas.ts';
import { declareOperation, MCP_SEARCH_DEFAULTS, type OperationExample } from '../declaration.ts';

/** The index's reads: the list, one service, a batch of them, and the census. */

/** At most this many distinct ids per batch. */
export const MAX_BATCH_IDS = 100;

const idPath = z.object({ id: z.string().meta({ description: 'Service id (case-insensitive), e.g. api-example-com.' }) });

export const listServicesDeclaration = declareOperation({
  id: 'listServices',
  method: 'GET',
  path: '/api/v1/services',
  group: 'index',
  summary: 'List and filter services, best first (quality: live, unflagged, uptime, directories; with q, the best text match first) unless sort says otherwise, with offset paging. Filters combine; all are case-insensitive.',
  input: { query: ServiceListQuery },
  output: ServiceList,
  errors: { '400': 'missing_query: a value of live, sort, max_price_usd, source, flag or flags outside what it allows (named in the message).' },
  tool: {
    name: 'search_services', title: 'Search payable services', readOnly: true,
    defaults: MCP_SEARCH_DEFAULTS,
  },
  examples: (): OperationExample[] => [
    { query: { rail: 'x402', chain: 'base', live: 'true', limit: '20' } },
    { query: { q: 'weather', sort: 'relevance' } },
    { query: { sort: 'price', max_price_usd: '0.01', live: 'true' } },
    { query: { offset: '100' } },
  ],
});

export const getServiceDeclaration = declareOperation({
  id: 'getService',
  method: 'GET',
  path: '/api/v1/services/{id}',
  group: 'index',
  summary: 'One service with where it is listed, its uptime and its last 20 checks, newest first. The id is the endpoint host as a slug; case-insensitive.',
  input: { path: idPath },
  output: ServiceDetail,
  errors: { '404': 'not_found: no such service, or it was delisted (the message says so).' },
  tool: { name: 'get_service', title: 'Get one service', readOnly: true },
  examples: ({ exampleId }) => [{ path: { id: exampleId } }],
});

const IDS_MESSAGE = `must be an array of 1-${MAX_BATCH_IDS} service id strings`;

export const batchServicesDeclaration = declareOperation({
  id: 'batchServices',
  method: 'POST',
  path: '/api/v1/services/batch',
  group: 'index',
  summary: 'Up to 100 services by id in one request, in the order asked.',
  input: {
    body: z.object({
      ids: z.array(z.string({ error: IDS_MESSAGE }), { error: IDS_MESSAGE })
        .meta({ description: '1-100 distinct service ids; case-insensitive; duplicates ignored.' }),
    }).meta({ id: 'BatchRequest' }),
  },
  fieldErrors: { ids: 'invalid_ids' },
  output: BatchResult,
  errors: { '400': 'invalid_json or invalid_ids.', '413': 'invalid_json: body over 64 KiB.' },
  tool: { name: 'get_services', title: 'Get services by id', readOnly: true },
  examples: ({ exampleId }) => [{ body: { ids: [exampleId, 'no-such-service'] } }],
});

export const batchServicesByQueryDeclaration = declareOperation({
  id: 'batchServicesByQuery',
  method: 'GET',
  path: '/api/v1/services/batch',
  group: 'index',
  summary: 'The same lookup for clients that cannot send a body.',
  input: {
    query: z.object({
      ids: z.preprocess((value) => (Array.isArray(value) ? value.join(',') : value),
        z.string({ error: `is required: add ?ids= with 1-${MAX_BATCH_IDS} comma-separated service ids` }))
        .meta({ description: '1-100 comma-separated ids.' }),
    }),
  },
  output: BatchResult,
  errors: { '400': 'missing_query or invalid_ids.' },
  examples: ({ exampleId }) => [{ query: { ids: `${exampleId},no-such-service` } }],
});

export const getStatsDeclaration = declareOperation({
  id: 'getStats',
  method: 'GET',
  path: '/api/v1/stats',
  group: 'index',
  summary: 'Census counts over the whole index, with services per rail, chain and asset.',
  input: {},
  output: Stats,
  errors: {},
  tool: { name: 'get_stats', title: 'Census of the index', readOnly: true },
  examples: () => [{}],
});
