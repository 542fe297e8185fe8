import { z } from 'zod';
import { toIgnored, toServiceQuery, ServiceListQuery } from '../../domain/list-query.ts';
import { BatchResult, ServiceDetail, ServiceList, Stats } from '../../domain/schemas.ts';
import { getDelisting } from '../../data/owners.ts';
import { readServiceDetail } from '../../data/service-detail.ts';
import { listServices } from '../../data/service-list.ts';
import { getServicesByIds, getStats } from '../../data/service-read.ts';
import { apiError } from '../errors.ts';
import { JsonBytes } from '../http.ts';
import { defineOperation, MCP_SEARCH_DEFAULTS, type OperationContext, type OperationExample } from '../operation.ts';

/** The index's reads: the list, one service, a batch of them, and the census. */

/** At most this many distinct ids per batch. */
export const MAX_BATCH_IDS = 100;

const idPath = z.object({ id: z.string().meta({ description: 'Service id (case-insensitive), e.g. api-example-com.' }) });

export const listServicesOperation = defineOperation({
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
  handle: ({ query }, { deps }) => {
    const applied = toServiceQuery(query);
    const { counts, services, more, sort } = listServices(deps.db, applied);
    return {
      generated_at: deps.now().toISOString(),
      counts,
      page: { ...applied.page, next_offset: more ? applied.page.offset + services.length : null, sort, ignored: toIgnored(ServiceListQuery, query) },
      services,
    } satisfies ServiceList;
  },
});

/**
 * One service: its stored answer, as read (data/service-detail.ts). On a socket, most lookups are answered before
 * routing (api/detail-lane.ts); this answers the rest (ids to decode, unknown services) and the MCP tool.
 */
export const getServiceOperation = defineOperation({
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
  handle: ({ path }, { deps }) => {
    const id = path.id.toLowerCase();
    const detail = readServiceDetail(deps.db, id);
    const delisting = detail === null ? getDelisting(deps.db, id) : null;
    if (delisting) {
      const who = delisting.by === 'owner' ? 'its owner' : 'an operator';
      throw apiError(404, 'not_found', `The service "${id}" is not listed: ${who} delisted it${delisting.reason ? ` (${delisting.reason.slice(0, 200)})` : ''}.`);
    }
    if (detail === null) throw apiError(404, 'not_found', `No service with id "${id.slice(0, 100)}". Find ids at /api/v1/services.`);
    return new JsonBytes(detail.body, detail.digest);
  },
});

const IDS_MESSAGE = `must be an array of 1-${MAX_BATCH_IDS} service id strings`;

export const batchServicesOperation = defineOperation({
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
  handle: ({ body }, context) => lookUp(context, body.ids),
});

export const batchServicesByQueryOperation = defineOperation({
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
  handle: ({ query }, context) => lookUp(context, query.ids.split(',')),
});

export const getStatsOperation = defineOperation({
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
  handle: (_input, { deps }) => ({ generated_at: deps.now().toISOString(), ...getStats(deps.db) }) satisfies Stats,
});

function lookUp({ deps }: OperationContext, ids: string[]): BatchResult {
  const requested = toDistinctIds(ids);
  if (requested.size === 0 || requested.size > MAX_BATCH_IDS) {
    throw apiError(400, 'invalid_ids', `Send 1-${MAX_BATCH_IDS} distinct service ids; got ${requested.size}.`);
  }
  const found = getServicesByIds(deps.db, [...requested.keys()]);
  const foundIds = new Set(found.map((service) => service.id));
  return {
    generated_at: deps.now().toISOString(),
    requested: requested.size,
    found,
    missing: [...requested].filter(([id]) => !foundIds.has(id)).map(([, asSent]) => asSent),
  };
}

/**
 * The distinct ids in the order sent, lower-cased (ids are case-insensitive), each with its first spelling as sent,
 * so `missing` names ids the way the client wrote them.
 */
function toDistinctIds(ids: string[]): Map<string, string> {
  const distinct = new Map<string, string>();
  for (const id of ids.map((text) => text.trim()).filter(Boolean)) {
    if (!distinct.has(id.toLowerCase())) distinct.set(id.toLowerCase(), id);
  }
  return distinct;
}
