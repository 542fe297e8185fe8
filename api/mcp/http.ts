import type { H3Event } from 'h3';
import type { Route, Runtime } from '../app.ts';
import { readJsonObject } from '../body.ts';
import { apiError } from '../errors.ts';
import { toOwnOrigin } from '../origin.ts';

/** The SDK and the tools, loaded on the first MCP request: a server that is never asked over MCP does not hold them. */
const loadMcp = async () => {
  const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./server.ts'),
  ]);
  return { WebStandardStreamableHTTPServerTransport, createMcpServer };
};

/**
 * MCP over Streamable HTTP at `/mcp`, stateless with JSON answers: each POST is one JSON-RPC exchange with a server
 * and transport of its own (the SDK's stateless mode), behind the API's rate limit and CORS. No session, so no GET
 * stream and nothing to DELETE: those answer 405 in the Error shape, as an unknown method anywhere does.
 * @example const routes = [...apiRoutes, ...mcpRoutes(runtime)];
 */
export function mcpRoutes(runtime: Runtime): Route[] {
  return [{ method: 'POST', path: '/mcp', handler: (event) => answerMcp(event, runtime) }];
}

async function answerMcp(event: H3Event, runtime: Runtime): Promise<Response> {
  const message = await readJsonRpc(event);
  const { WebStandardStreamableHTTPServerTransport, createMcpServer } = await loadMcp();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const server = createMcpServer({ ...runtime, origin: toOwnOrigin(event, runtime.deps.config), app: event.app });
  await server.connect(transport);
  try {
    return await transport.handleRequest(event.req, { parsedBody: message });
  } finally {
    void server.close();
  }
}

/** The JSON-RPC message or batch: a body that is not JSON (or over 64 KiB) answers in the API's Error shape. */
async function readJsonRpc(event: H3Event): Promise<unknown> {
  const contentType = event.req.headers.get('content-type') ?? '';
  if (!contentType.includes('application/json')) {
    throw apiError(415, 'invalid_json', 'Send the JSON-RPC message with Content-Type: application/json (MCP Streamable HTTP).');
  }
  return readJsonObject(event, { allowArray: true });
}
