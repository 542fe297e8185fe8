import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toErrorBody } from '../errors.ts';
import { JsonBytes, JsonReply } from '../http.ts';
import { readPart, type Operation, type OperationContext } from '../operation.ts';
import { OPERATIONS } from '../operations/index.ts';

/*
 * The MCP server: one tool per operation that names one (api/operations/), its arguments the operation's path, query
 * and body fields in one object, read by the same schemas as a REST request, so an argument the API refuses is refused
 * here with the same Error. `structuredContent` is exactly the REST body, and a text content carries the same JSON;
 * a failure is `isError: true` with the Error shape as its text.
 */

export const MCP_SERVER_NAME = 'payable-service-index';
const MCP_SERVER_VERSION = '1.0.0';
const INSTRUCTIONS = 'A public index of HTTP services an AI agent can pay for with stablecoins (x402, MPP, ACP). '
  + 'search_services finds services (filter by rail, chain, asset, price, live; sort by price, uptime, latency); '
  + 'get_service gives one with its checks; live: true means it answered a payment challenge on its last check. '
  + 'get_changes follows what changed (went live or dark, new prices and terms) by cursor. '
  + 'create_purchase asks the owner to approve a testnet purchase of a demo service (list_demo_services).';

interface McpTool {
  operation: Operation;
  /** The operation's path, query and body fields in one object, for the tool's arguments. */
  parts: Array<{ part: 'path' | 'query' | 'body'; keys: string[] }>;
  description: Tool;
}

/**
 * One JSON Schema validator for every server: the SDK makes a new Ajv per server otherwise, which cost more than the
 * rest of a stateless request (a server per request).
 */
const VALIDATOR = new AjvJsonSchemaValidator();

const TOOLS: ReadonlyMap<string, McpTool> = new Map(OPERATIONS.flatMap((operation) => (operation.tool ? [toTool(operation)] : []))
  .map((tool) => [tool.description.name, tool]));

/**
 * An MCP server answering the index's tools in `context` (a new one per request over HTTP, one for the stdio process).
 * @example await createMcpServer(context).connect(new StdioServerTransport());
 */
export function createMcpServer(context: OperationContext): Server {
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, {
    capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...TOOLS.values()].map((tool) => tool.description) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(request.params.name, request.params.arguments ?? {}, context));
  return server;
}

/** Calls a tool: never throws; a failure is `isError: true` carrying the Error shape the REST route would answer. */
async function callTool(name: string, args: Record<string, unknown>, context: OperationContext): Promise<CallToolResult> {
  try {
    const tool = TOOLS.get(name);
    if (!tool) throw new UnknownTool(name);
    const input = { path: {}, query: {}, headers: readPart(tool.operation, 'headers', {}), body: undefined as unknown };
    const fields = Object.entries({ ...tool.operation.tool?.defaults, ...args }).map(([key, value]) => [tool.operation.tool?.arguments?.[key] ?? key, value] as const);
    for (const { part, keys } of tool.parts) {
      const given = Object.fromEntries(fields.filter(([key]) => keys.includes(key)));
      (input as Record<string, unknown>)[part] = readPart(tool.operation, part, given);
    }
    const body = toJsonValue(await tool.operation.handle(input as never, context));
    return { structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }] };
  } catch (error) {
    const { body } = error instanceof UnknownTool ? unknownToolBody(error.name) : toErrorBody(error);
    // The Error goes in the text only: clients check any structuredContent against the tool's output schema.
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}

class UnknownTool extends Error {
  constructor(readonly tool: string) {
    super(tool);
  }
}

function unknownToolBody(name: string) {
  const known = [...TOOLS.keys()].join(', ');
  return { body: { error: { code: 'not_found', message: `No tool "${name.slice(0, 100)}". The tools are: ${known}.` } } };
}

/** What a handler answered, as the JSON value the REST route sends (a plain value is one already: read from data). */
function toJsonValue(result: unknown): Record<string, unknown> {
  if (result instanceof JsonBytes) return JSON.parse(Buffer.from(result.body).toString('utf8'));
  if (result instanceof JsonReply) return JSON.parse(result.json);
  return result as Record<string, unknown>;
}

function toTool(operation: Operation): McpTool {
  const spec = operation.tool!;
  const { path, query, body } = operation.input;
  const parts = ([['path', path], ['query', query], ['body', body]] as const)
    .flatMap(([part, schema]) => (schema instanceof z.ZodObject ? [{ part, shape: schema.shape }] : []));
  const args = z.object(toArguments(Object.assign({}, ...parts.map(({ shape }) => shape)), spec.arguments ?? {}));
  return {
    operation,
    parts: parts.map(({ part, shape }) => ({ part, keys: Object.keys(shape) })),
    description: {
      name: spec.name,
      title: spec.title,
      description: operation.summary,
      inputSchema: toJsonSchema(args, 'input') as Tool['inputSchema'],
      outputSchema: toJsonSchema(operation.output, 'output') as Tool['outputSchema'],
      annotations: { title: spec.title, readOnlyHint: spec.readOnly, openWorldHint: false, ...(spec.readOnly ? {} : { destructiveHint: false }) },
    },
  };
}

/** The operation's fields under the tool's names for them. */
function toArguments(shape: Record<string, z.ZodType>, names: Record<string, string>): Record<string, z.ZodType> {
  const argumentOf = new Map(Object.entries(names).map(([argument, field]) => [field, argument]));
  return Object.fromEntries(Object.entries(shape).map(([field, schema]) => [argumentOf.get(field) ?? field, schema]));
}

/**
 * A schema as the JSON Schema (draft 7, what MCP clients validate with) of its input or output; outputs allow added
 * fields, since v1 answers only ever gain fields.
 */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-7',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
    },
  }) as { $ref?: string; definitions?: Record<string, Record<string, unknown>> };
  // A schema with an id comes out as a reference to its definition; MCP wants the object itself at the top.
  const named = json.$ref?.replace('#/definitions/', '');
  return named && json.definitions?.[named] ? { ...json.definitions[named], definitions: json.definitions } : json;
}
