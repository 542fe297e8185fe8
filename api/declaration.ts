import type { z } from 'zod';
import type { ErrorCode } from '../domain/schemas.ts';

/*
 * An operation's declaration: its name, method and path, the zod schemas of what it reads (path, query, headers,
 * body) and answers, its summary, the errors it may answer, its MCP tool and its examples; everything but how it is
 * handled. The declarations (api/declarations/) are what the site's /docs and llms.txt read, so the site's build never
 * compiles a handler or what a handler reaches (data/, crawler/). The API attaches a handler to each
 * (api/operation.ts `defineOperation`), and its routes, /openapi.json and MCP tools are made from that list.
 */

type Shape = z.ZodObject;

export interface OperationInput {
  path?: Shape;
  query?: Shape;
  headers?: Shape;
  body?: z.ZodType;
}

/** The page a search tool answers over MCP unless asked for more: a model reads, and pays for, every result. */
export const MCP_SEARCH_DEFAULTS = { limit: { value: 20, description: 'Page size 1-500, default 20 over MCP (100 over REST).' } };

/** An MCP tool made from an operation: its arguments are the operation's path, query and body fields in one object. */
export interface ToolSpec {
  name: string;
  title: string;
  /** A read that changes nothing (MCP `readOnlyHint`). */
  readOnly: boolean;
  /** Tool argument -> the operation's field, where the tool's contract names one otherwise (get_changes' `types`). */
  arguments?: Record<string, string>;
  /**
   * Tool argument -> its value when not given and the description saying so, where an answer a model reads should be
   * smaller than the REST default (search_services' `limit`).
   */
  defaults?: Record<string, { value: unknown; description: string }>;
}

/** Request examples for /docs: the values filled into the path, the query string and the body. */
export interface OperationExample {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The secrets an operation may need as a bearer: a claim's secret, a service's owner key. */
export type BearerScheme = 'claimSecret' | 'ownerKey';

export interface OperationDeclaration<I extends OperationInput = OperationInput> {
  /** The OpenAPI operationId. */
  id: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The status of a success, when not 200 (the handler answers a JsonReply with it). */
  status?: 201 | 202;
  /** With `{name}` placeholders, as OpenAPI writes them. */
  path: string;
  summary: string;
  /** Which documentation group it belongs to; the demo services are described by the purchase catalog, not /docs. */
  group: 'index' | 'purchase' | 'demo';
  input: I;
  output: z.ZodType;
  /** Status -> what it means, for every answer but 200, 429 and 500 (which every operation may give). */
  errors: Record<string, string>;
  /** Status -> what it means and its shape, for an answer that is not the Error shape (a demo service's 402 challenge). */
  answers?: Record<string, { description: string; schema: z.ZodType }>;
  /** The secret it needs as `Authorization: Bearer` (OpenAPI's security scheme of that name: api/openapi.ts). */
  bearer?: BearerScheme;
  /** The error code a field's invalid value answers; `invalid_json` for a body, `missing_query` otherwise by default. */
  fieldErrors?: Record<string, ErrorCode>;
  tool?: ToolSpec;
  examples?: (context: { exampleId: string }) => OperationExample[];
}

/**
 * Declares an operation, keeping its schemas' types for the handler attached to it.
 * @example export const getStatsDeclaration = declareOperation({ id: 'getStats', method: 'GET', path: '/api/v1/stats', ... });
 */
export function declareOperation<I extends OperationInput>(declaration: OperationDeclaration<I>): OperationDeclaration<I> {
  return declaration;
}
