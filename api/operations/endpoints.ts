import { toEndpointQuery } from '../../domain/endpoint-query.ts';
import type { EndpointList } from '../../domain/schemas.ts';
import { listEndpoints } from '../../data/endpoint-list.ts';
import { getEndpoint } from '../../data/endpoints.ts';
import { getEndpointDeclaration, listEndpointsDeclaration } from '../declarations/endpoints.ts';
import { apiError } from '../errors.ts';
import { defineOperation } from '../operation.ts';

/** Endpoints: what an agent chooses and calls, each with its offers, input and output. */

export const listEndpointsOperation = defineOperation(listEndpointsDeclaration, ({ query }, { deps }) => {
  const applied = toEndpointQuery(query);
  const { counts, endpoints, more } = listEndpoints(deps.db, applied);
  return {
    generated_at: deps.now().toISOString(),
    counts,
    page: { ...applied.page, next_offset: more ? applied.page.offset + endpoints.length : null, sort: applied.sort, ignored: applied.ignored },
    endpoints,
  } satisfies EndpointList;
});

export const getEndpointOperation = defineOperation(getEndpointDeclaration, ({ path }, { deps }) => {
  const endpoint = getEndpoint(deps.db, path.id.toLowerCase());
  if (endpoint === null) throw apiError(404, 'not_found', `No endpoint with id "${path.id.slice(0, 100)}". Find ids at /api/v1/endpoints.`);
  return endpoint;
});
