import { toIgnored, toServiceQuery, ServiceListQuery } from '../../domain/list-query.ts';
import type { BatchResult, ServiceList, Stats } from '../../domain/schemas.ts';
import { getDelisting } from '../../data/owners.ts';
import { readServiceDetail } from '../../data/service-detail.ts';
import { listServices } from '../../data/service-list.ts';
import { getServicesByIds, getStats } from '../../data/service-read.ts';
import {
  batchServicesByQueryDeclaration, batchServicesDeclaration, getServiceDeclaration, getStatsDeclaration, listServicesDeclaration,
  MAX_BATCH_IDS,
} from '../declarations/services.ts';
import { apiError } from '../errors.ts';
import { JsonBytes } from '../http.ts';
import { defineOperation, type OperationContext } from '../operation.ts';

/** The index's reads: the list, one service, a batch of them, and the census. */

export const listServicesOperation = defineOperation(listServicesDeclaration, ({ query }, { deps }) => {
  const applied = toServiceQuery(query);
  const { counts, services, more, sort } = listServices(deps.db, applied);
  return {
    generated_at: deps.now().toISOString(),
    counts,
    page: { ...applied.page, next_offset: more ? applied.page.offset + services.length : null, sort, ignored: toIgnored(ServiceListQuery, query) },
    services,
  } satisfies ServiceList;
});

/**
 * One service: its stored answer, as read (data/service-detail.ts). On a socket, most lookups are answered before
 * routing (api/detail-lane.ts); this answers the rest (ids to decode, unknown services) and the MCP tool.
 */
export const getServiceOperation = defineOperation(getServiceDeclaration, ({ path }, { deps }) => {
  const id = path.id.toLowerCase();
  const detail = readServiceDetail(deps.db, id);
  const delisting = detail === null ? getDelisting(deps.db, id) : null;
  if (delisting) {
    const who = delisting.by === 'owner' ? 'its owner' : 'an operator';
    throw apiError(404, 'not_found', `The service "${id}" is not listed: ${who} delisted it${delisting.reason ? ` (${delisting.reason.slice(0, 200)})` : ''}.`);
  }
  if (detail === null) throw apiError(404, 'not_found', `No service with id "${id.slice(0, 100)}". Find ids at /api/v1/services.`);
  return new JsonBytes(detail.body, detail.digest);
});

export const batchServicesOperation = defineOperation(batchServicesDeclaration, ({ body }, context) => lookUp(context, body.ids));

export const batchServicesByQueryOperation = defineOperation(batchServicesByQueryDeclaration, ({ query }, context) => lookUp(context, query.ids.split(',')));

export const getStatsOperation = defineOperation(getStatsDeclaration, (_input, { deps }) => ({ generated_at: deps.now().toISOString(), ...getStats(deps.db) }) satisfies Stats);

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
