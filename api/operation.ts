import type { z } from 'zod';
import type { ErrorCode } from '../domain/schemas.ts';
import type { AppDeps } from './app.ts';
import { apiError } from './errors.ts';
import type { Fetchable } from './purchase/pay.ts';

/*
 * An operation is declared once: its name, method and path, the zod schemas of what it reads (path, query, headers,
 * body) and answers, its summary, the errors it may answer, and its handler over `data/`. The h3 routes (api/app.ts),
 * the OpenAPI document (api/openapi.ts), the /docs tables (site/src/lib/docs.ts) and the MCP tools (api/mcp/) are all
 * made from the list of them (api/operations.ts), so none can disagree with another.
 */

type Shape = z.ZodObject;

export interface OperationInput {
  path?: Shape;
  query?: Shape;
  headers?: Shape;
  body?: z.ZodType;
}

/** What a handler is given: each part of the request as its schema read it. */
export interface Parsed<I extends OperationInput> {
  path: I['path'] extends Shape ? z.output<I['path']> : Record<string, never>;
  query: I['query'] extends Shape ? z.output<I['query']> : Record<string, never>;
  headers: I['headers'] extends Shape ? z.output<I['headers']> : Record<string, never>;
  body: I['body'] extends z.ZodType ? z.output<I['body']> : undefined;
}

/** Where an operation runs: the app's dependencies and the origin it was reached at (for the URLs it answers). */
export interface OperationContext {
  deps: AppDeps;
  /** The origin its links are built on (api/origin.ts: configured, else the listening address; never the Host header). */
  origin: string;
  /** The app itself, for an operation that calls another route in process (the purchase approval). */
  app?: Fetchable;
  /** The client's address, as the rate limit counts it (`local` for MCP's stdio, which has one client). */
  client?: string;
  /** The URL as the client asked for it: a demo service's x402 challenge names it as the resource paid for. */
  url?: URL;
}

/** An MCP tool made from an operation: its arguments are the operation's path, query and body fields in one object. */
/** The page a search tool answers over MCP unless asked for more: a model reads, and pays for, every result. */
export const MCP_SEARCH_DEFAULTS = { limit: { value: 20, description: 'Page size 1-500, default 20 over MCP (100 over REST).' } };

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

export interface Operation<I extends OperationInput = OperationInput> {
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
  /** Answers a value of `output`, or that value already serialized (a `JsonBytes` or `JsonReply` of api/http.ts). */
  handle(input: Parsed<I>, context: OperationContext): unknown;
}

/**
 * Declares an operation with its handler's input typed from its schemas.
 * @example export const getStats = defineOperation({ id: 'getStats', method: 'GET', path: '/api/v1/stats', ... });
 */
export function defineOperation<I extends OperationInput>(operation: Operation<I>): Operation {
  return operation as unknown as Operation;
}

export type Part = keyof OperationInput;

/** How an error message names a field of a part: REST says "The query parameter "limit"", MCP names the argument. */
export type FieldNamer = (part: Part, field: string) => string;

const restName: FieldNamer = (part, field) => {
  const where = part === 'query' ? 'query parameter' : part === 'headers' ? 'header' : part === 'path' ? 'path segment' : 'field';
  return `The ${where} "${field}"`;
};

/** The error code a field's invalid value answers. */
export function fieldErrorCode(operation: Operation, part: Part, field: string): ErrorCode {
  return operation.fieldErrors?.[field] ?? (part === 'body' ? 'invalid_json' : 'missing_query');
}

/**
 * Reads one part of a request with its schema, or throws the Error shape (400) naming the field and what it allows:
 * the one mapping of zod's issues to the API's errors.
 */
export function readPart(operation: Operation, part: Part, value: unknown, name: FieldNamer = restName): unknown {
  const schema = operation.input[part];
  if (!schema) return part === 'body' ? undefined : {};
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  // A strict object's unknown key is named as its field, so the message says which one to drop.
  const field = issue.path.length > 0 ? String(issue.path[0]) : issue.code === 'unrecognized_keys' ? issue.keys[0]! : '';
  const missing = field !== '' && (value as Record<string, unknown> | undefined)?.[field] === undefined;
  throw apiError(400, fieldErrorCode(operation, part, field), toMessage(name(part, field), field, issue, missing));
}

/** A field's issue in words: the schema's own message, else "is required" for a missing field, else zod's. */
function toMessage(named: string, field: string, issue: z.core.$ZodIssue, missing: boolean): string {
  if (field === '') return issue.message;
  const own = !issue.message.startsWith('Invalid input');
  const message = own || !missing ? issue.message : 'is required';
  const at = issue.path.length > 1 ? ` (at ${issue.path.join('.')})` : '';
  return `${named}${at} ${message}.`;
}
