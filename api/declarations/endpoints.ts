import { z } from 'zod';
import { EndpointListQuery } from '../../domain/endpoint-query.ts';
import { Endpoint, EndpointList } from '../../domain/schemas.ts';
import { declareOperation, MCP_SEARCH_DEFAULTS, type OperationExample } from '../declaration.ts';

/** Endpoints: what an agent chooses and calls, each with its offers, input and output. */

export const listEndpointsDeclaration = declareOperation({
  id: 'listEndpoints',
  method: 'GET',
  path: '/api/v1/endpoints',
  group: 'index',
  summary: 'Search endpoints (one operation each, with offers, input and output). Live and unflagged first; with q, best match first.',
  input: { query: EndpointListQuery },
  output: EndpointList,
  errors: { '400': 'missing_query: a value of live, has_input, max_price_usd, flag, flags or sort outside what it allows.' },
  tool: {
    name: 'search_endpoints', title: 'Search endpoints', readOnly: true,
    defaults: MCP_SEARCH_DEFAULTS,
  },
  examples: (): OperationExample[] => [
    { query: { q: 'search', max_price_usd: '0.04' } },
    { query: { rail: 'mpp', scheme: 'session', has_input: 'true' } },
    { query: { sort: 'price', live: 'true', limit: '20' } },
  ],
});

export const getEndpointDeclaration = declareOperation({
  id: 'getEndpoint',
  method: 'GET',
  path: '/api/v1/endpoints/{id}',
  group: 'index',
  summary: 'One endpoint: how to call it, its offers and its last check.',
  input: { path: z.object({ id: z.string().meta({ description: 'Endpoint id (case-insensitive).' }) }) },
  output: Endpoint,
  errors: { '404': 'not_found: no such endpoint.' },
  tool: { name: 'get_endpoint', title: 'Get one endpoint', readOnly: true },
  examples: ({ exampleId }) => [{ path: { id: `${exampleId}.get` } }],
});
