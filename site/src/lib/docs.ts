import { z } from 'zod';
import type { OperationDeclaration, OperationExample } from '../../../api/declaration.ts';
import { DECLARATIONS } from '../../../api/declarations/index.ts';
import { ERROR_CODES, type ErrorCode } from '../../../domain/schemas.ts';
import { shellQuote } from './format.ts';

/**
 * Every route of the API and the site, with curl examples: the source of /docs (HTML) and of the route list in
 * /llms.txt, so the two never disagree. The API's routes come from its operations' declarations (api/declarations/),
 * the same ones its router, /openapi.json and MCP tools are made from; the site never compiles their handlers.
 */

export interface RouteDoc {
  /** Anchor on /docs. */
  anchor: string;
  method: OperationDeclaration['method'];
  path: string;
  summary: string;
  params: Array<{ name: string; text: string }>;
  /** Shell commands, absolute URLs. */
  examples: string[];
  /** What answers: the shape and the statuses. */
  answers: string;
}

export interface RouteGroup {
  title: string;
  anchor: string;
  intro: string;
  routes: RouteDoc[];
}

export interface DocsOptions {
  siteUrl: string;
  /** Where the purchase preview is served (STAGING_URL, else the site itself). */
  stagingUrl: string;
  /** A service id that exists, for the examples. */
  exampleId: string;
}

const get = (url: string) => `curl -s ${shellQuote(url)}`;
const post = (url: string, body: unknown, headers: string[] = [], method = 'POST') =>
  [`curl -s -X ${method} ${shellQuote(url)}`, `-H 'content-type: application/json'`, ...headers.map((h) => `-H ${shellQuote(h)}`),
    `-d ${shellQuote(JSON.stringify(body))}`].join(' \\\n  ');

/** Anchors on /docs that pages and llms.txt already link to, by operation id; others take the id in kebab case. */
const ANCHORS: Readonly<Record<string, string>> = {
  listServices: 'list', getService: 'detail', batchServices: 'batch-post', batchServicesByQuery: 'batch-get', getStats: 'stats',
  submitService: 'submit', getSubmission: 'submission', getPurchaseCatalog: 'catalog', getPurchaseCatalogService: 'catalog-service',
  createPurchase: 'purchases', getPurchase: 'purchase-status', approvePurchase: 'purchase-approval',
};

/**
 * The routes, grouped as /docs shows them.
 * @example listRouteGroups({ siteUrl, stagingUrl: siteUrl, exampleId: 'api-example-com' })[0].routes[0].path // '/api/v1/services'
 */
export function listRouteGroups({ siteUrl, stagingUrl, exampleId }: DocsOptions): RouteGroup[] {
  const routesOf = (group: OperationDeclaration['group'], origin: string) =>
    DECLARATIONS.filter((operation) => operation.group === group).map((operation) => toRouteDoc(operation, origin, exampleId));
  return [
    {
      title: 'Index API',
      anchor: 'index-api',
      intro: 'Read the index: no key, open CORS, JSON everywhere. Reads are cached for 60 s in browsers and 300 s at the edge, with an ETag.',
      routes: [
        ...routesOf('index', siteUrl),
        {
          anchor: 'openapi',
          method: 'GET',
          path: '/openapi.json',
          summary: 'The OpenAPI 3.1 description of every route, generated from the same schemas the server validates against.',
          params: [],
          examples: [get(`${siteUrl}/openapi.json`)],
          answers: 'OpenAPI document, version 1.0.0.',
        },
        {
          anchor: 'mcp',
          method: 'POST',
          path: '/mcp',
          summary: 'The same operations as MCP tools (Streamable HTTP, stateless, JSON answers), under the same rate limit, each message of a batch counting as one request. See "MCP" below for a client config.',
          params: [],
          examples: [post(`${siteUrl}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, ['accept: application/json, text/event-stream'])],
          answers: 'JSON-RPC 2.0 answers; a tool result carries the REST body as structuredContent.',
        },
      ],
    },
    {
      title: 'Snapshots and pages',
      anchor: 'snapshots',
      intro: 'Static files written by each build beside the pages, so a CDN can serve the whole index in one request. Each has exactly the shape of the matching API response.',
      routes: [
        {
          anchor: 'snapshot-services',
          method: 'GET',
          path: '/snapshots/services.json',
          summary: 'The whole index in the list shape: every service in one document (page.next_offset is null).',
          params: [],
          examples: [get(`${siteUrl}/snapshots/services.json`)],
          answers: 'ServiceList.',
        },
        {
          anchor: 'snapshot-stats',
          method: 'GET',
          path: '/snapshots/stats.json',
          summary: 'The census counts as of the build.',
          params: [],
          examples: [get(`${siteUrl}/snapshots/stats.json`)],
          answers: 'Stats.',
        },
        {
          anchor: 'snapshot-service',
          method: 'GET',
          path: '/snapshots/services/{id}.json',
          summary: 'One service in the detail shape.',
          params: [],
          examples: [get(`${siteUrl}/snapshots/services/${exampleId}.json`)],
          answers: 'ServiceDetail.',
        },
        {
          anchor: 'listing-page',
          method: 'GET',
          path: '/services/{id}',
          summary: 'The listing page of one service host, for people: last check, price, uptime, endpoints, recent checks.',
          params: [],
          examples: [get(`${siteUrl}/services/${exampleId}`)],
          answers: 'HTML.',
        },
      ],
    },
    {
      title: 'Purchase preview (testnet)',
      anchor: 'purchase',
      intro: 'An agent may ask for a purchase of a demo service; only the owner can pay, by approving it in a browser wallet. Test USDC on Base Sepolia only. Step by step: /docs/purchase.md.',
      routes: routesOf('purchase', stagingUrl),
    },
  ];
}

/** How an MCP client adds the index: a remote HTTP server, or the stdio command on a local checkout. */
export function toMcpConfigs(siteUrl: string): { http: string; stdio: string } {
  const http = { mcpServers: { 'payable-service-index': { type: 'http', url: `${siteUrl}/mcp` } } };
  // Over stdio, BASE_URL names the server whose approval pages a purchase's approve_url points at.
  const stdio = {
    mcpServers: { 'payable-service-index': { command: 'npm', args: ['run', '--silent', 'mcp'], cwd: '/path/to/payable-service-index', env: { BASE_URL: siteUrl } } },
  };
  return { http: JSON.stringify(http, null, 2), stdio: JSON.stringify(stdio, null, 2) };
}

/** The MCP tools, in the operations' order: the names `tools/list` answers. */
export function listMcpTools(): string[] {
  return DECLARATIONS.flatMap((operation) => (operation.tool ? [operation.tool.name] : []));
}

/** What an error code says beyond its name; a record over every code, so a new one cannot go undocumented. */
const ERROR_NOTES: Readonly<Record<ErrorCode, string>> = {
  not_found: 'unknown id or path; for a path, "endpoints" lists the paths that exist',
  invalid_endpoint: "not a public absolute http(s) URL, or not one of the service's endpoints",
  invalid_json: 'a body that is not the JSON asked for',
  invalid_ids: "a batch's ids missing, too many or malformed",
  missing_query: 'a query parameter missing or outside what it allows, named',
  rate_limited: 'over the limit, with Retry-After',
  internal_error: 'retry with backoff',
  unauthorized: 'no bearer secret, or the wrong one',
  conflict: 'a claim or write that its current state refuses',
};

/** Every error code the API answers, in `ERROR_CODES` order, with what it says: /docs and /llms.txt list them. */
export function listErrorCodes(): Array<{ code: ErrorCode; note: string }> {
  return ERROR_CODES.map((code) => ({ code, note: ERROR_NOTES[code] }));
}

function toRouteDoc(operation: OperationDeclaration, origin: string, exampleId: string): RouteDoc {
  const { path, query, headers, body } = operation.input;
  return {
    anchor: ANCHORS[operation.id] ?? operation.id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
    method: operation.method,
    path: operation.path,
    summary: operation.summary + (operation.tool ? ` MCP tool: ${operation.tool.name}.` : ''),
    params: [path, query, headers, body].flatMap((schema) => (schema instanceof z.ZodObject ? toParams(schema) : [])),
    examples: (operation.examples?.({ exampleId }) ?? [{}]).map((example) => toCurl(operation, origin, example)),
    answers: toAnswers(operation),
  };
}

function toParams(schema: z.ZodObject): RouteDoc['params'] {
  return Object.entries(schema.shape).map(([name, field]) => ({ name, text: String((field as z.ZodType).meta()?.description ?? '') }));
}

function toCurl(operation: OperationDeclaration, origin: string, example: OperationExample): string {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => example.path?.[name] ?? `{${name}}`);
  // Commas and colons read better as written (`ids=a,b`, `chain=eip155:8453`), and need no escape in a query.
  const search = new URLSearchParams(example.query ?? {}).toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
  const url = `${origin}${path}${search ? `?${search}` : ''}`;
  const headers = Object.entries(example.headers ?? {}).map(([name, value]) => `${name}: ${value}`);
  if (operation.method === 'GET') return [get(url), ...headers.map((h) => `-H ${shellQuote(h)}`)].join(' \\\n  ');
  if (operation.method === 'DELETE') return [`curl -s -X DELETE ${shellQuote(url)}`, ...headers.map((h) => `-H ${shellQuote(h)}`)].join(' \\\n  ');
  return post(url, example.body ?? {}, headers, operation.method);
}

/** What an operation answers: its output's shape and fields, and its statuses. */
function toAnswers(operation: OperationDeclaration): string {
  const output = operation.output;
  const id = output.meta()?.id;
  const fields = output instanceof z.ZodObject ? Object.keys(output.shape).join(', ') : '';
  const errors = Object.entries(operation.errors).map(([status, text]) => `${status} ${text.split(':')[0]!.replace(/\.$/, '')}`);
  return `${id ?? 'JSON'}${fields ? `: ${fields}` : ''}. ${[String(operation.status ?? 200), ...errors, '429', '500'].join(', ')}.`;
}
