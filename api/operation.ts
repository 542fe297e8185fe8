import type { z } from 'zod';
import type { ErrorCode } from '../domain/schemas.ts';
import type { AppDeps } from './app.ts';
import type { OperationDeclaration, OperationInput } from './declaration.ts';
import { apiError } from './errors.ts';
import type { Fetchable } from './purchase/pay.ts';

/*
 * An operation is its declaration (api/declaration.ts: name, method, path, schemas, summary, errors, tool) with a
 * handler over `data/` attached. The h3 routes (api/app.ts), the OpenAPI document (api/openapi.ts) and the MCP tools
 * (api/mcp/) are made from the list of them (api/operations/index.ts), /docs from the declarations alone, so none can
 * disagree with another.
 */

type Shape = z.ZodObject;

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

export interface Operation<I extends OperationInput = OperationInput> extends OperationDeclaration<I> {
  /** Answers a value of `output`, or that value already serialized (a `JsonBytes` or `JsonReply` of api/http.ts). */
  handle(input: Parsed<I>, context: OperationContext): unknown;
}

/**
 * An operation: a declaration with its handler, whose input is typed from the declaration's schemas.
 * @example export const getStatsOperation = defineOperation(getStatsDeclaration, (_input, { deps }) => getStats(deps.db));
 */
export function defineOperation<I extends OperationInput>(
  declaration: OperationDeclaration<I>,
  handle: (input: Parsed<I>, context: OperationContext) => unknown,
): Operation {
  return { ...declaration, handle } as unknown as Operation;
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
