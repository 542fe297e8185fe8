import type { H3Event } from 'h3';
import type { Route, Runtime } from '../app.ts';
import { readJsonObject } from '../body.ts';
import { apiError } from '../errors.ts';
import { JsonReply, toRequestClient, type HttpLayer } from '../http.ts';
import { loadOnce } from '../load-once.ts';
import { toOwnOrigin } from '../origin.ts';

/**
 * The SDK and the tools, loaded on the first MCP request: a server that is never asked over MCP does not hold them.
 * Imported once (an `import()` of a loaded module still resolves its specifier on every call).
 */
const loadMcp = loadOnce(async () => {
  const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./server.ts'),
  ]);
  return { WebStandardStreamableHTTPServerTransport, createMcpServer };
});

/**
 * MCP over Streamable HTTP at `/mcp`, stateless with JSON answers: each POST is one JSON-RPC exchange with a server
 * and transport of its own (the SDK's stateless mode), behind the API's rate limit and CORS. No session, so no GET
 * stream and nothing to DELETE: those answer 405 in the Error shape, as an unknown method anywhere does.
 * @example const routes = [...apiRoutes, ...mcpRoutes(runtime, layer)];
 */
export function mcpRoutes(runtime: Runtime, layer: HttpLayer): Route[] {
  return [{ method: 'POST', path: '/mcp', handler: (event) => answerMcp(event, runtime, layer) }];
}

async function answerMcp(event: H3Event, runtime: Runtime, layer: HttpLayer): Promise<Response | JsonReply> {
  const message = await readJsonRpc(event);
  if (Array.isArray(message) && message.length === 0) return EMPTY_BATCH;
  const remaining = Array.isArray(message) ? spendBatch(event, message.length, runtime, layer) : null;
  const { WebStandardStreamableHTTPServerTransport, createMcpServer } = await loadMcp();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const client = toRequestClient(event.req, runtime.deps.config.trustProxy);
  const server = createMcpServer({ ...runtime, origin: toOwnOrigin(event, runtime.deps.config), app: event.app, client });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(event.req, { parsedBody: message });
    if (remaining !== null) response.headers.set('ratelimit-remaining', String(remaining));
    return response;
  } finally {
    void server.close();
  }
}

/**
 * Every message of a batch spends a token, as a request does: the layer spent the first, the n - 1 others are spent
 * here, all or none (429 when the bucket cannot cover them). A batch over the whole limit could never be covered,
 * so it is refused as too large rather than told to wait. Answers the tokens left.
 */
function spendBatch(event: H3Event, size: number, runtime: Runtime, layer: HttpLayer): number | null {
  const { limit, windowSeconds } = runtime.deps.config.rateLimit;
  if (size > limit) {
    throw apiError(413, 'invalid_json', `A batch of ${size} messages is over the ${limit} requests a client may make per ${windowSeconds} s; each message counts as one. Send at most ${limit} in a batch.`);
  }
  return size > 1 ? layer.spend(event.req, size - 1) : null;
}

/** JSON-RPC 2.0 answers an empty batch with one Invalid Request error, never with nothing. */
const EMPTY_BATCH = new JsonReply(400, { 'cache-control': 'no-store' }, {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Invalid Request: the batch is empty. Send one JSON-RPC message, or an array of at least one.' },
});

/** The JSON-RPC message or batch: a body that is not JSON (or over 64 KiB) answers in the API's Error shape. */
async function readJsonRpc(event: H3Event): Promise<unknown> {
  const contentType = event.req.headers.get('content-type') ?? '';
  if (!contentType.includes('application/json')) {
    throw apiError(415, 'invalid_json', 'Send the JSON-RPC message with Content-Type: application/json (MCP Streamable HTTP).');
  }
  return readJsonObject(event, { allowArray: true });
}
