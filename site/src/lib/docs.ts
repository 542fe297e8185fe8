import { ListQuery } from '../../../api/schemas.ts';
import { shellQuote } from './format.ts';

/**
 * Every route of the API and the site, with curl examples: the source of /docs (HTML) and of the route list
 * in /llms.txt, so the two never disagree.
 */

/** The list's query parameters, described where the OpenAPI document takes them from (api/schemas.ts). */
const LIST_PARAMS = Object.entries(ListQuery.shape).map(([name, schema]) => ({ name, text: String(schema.meta()?.description) }));

export interface RouteDoc {
  /** Anchor on /docs. */
  anchor: string;
  method: 'GET' | 'POST';
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
const post = (url: string, body: unknown, headers: string[] = []) =>
  [`curl -s -X POST ${shellQuote(url)}`, `-H 'content-type: application/json'`, ...headers.map((h) => `-H ${shellQuote(h)}`),
    `-d ${shellQuote(JSON.stringify(body))}`].join(' \\\n  ');

/**
 * The routes, grouped as /docs shows them.
 * @example listRouteGroups({ siteUrl, stagingUrl: siteUrl, exampleId: 'api-example-com' })[0].routes[0].path // '/api/v1/services'
 */
export function listRouteGroups({ siteUrl, stagingUrl, exampleId }: DocsOptions): RouteGroup[] {
  const api = `${siteUrl}/api/v1`;
  const staging = `${stagingUrl}/api/v1`;
  return [
    {
      title: 'Index API',
      anchor: 'index-api',
      intro: 'Read the index: no key, open CORS, JSON everywhere. Reads are cached for 60 s in browsers and 300 s at the edge, with an ETag.',
      routes: [
        {
          anchor: 'list',
          method: 'GET',
          path: '/api/v1/services',
          summary: 'List and filter services, live first, then by id. Filters combine; all are case-insensitive.',
          params: LIST_PARAMS,
          examples: [
            get(`${api}/services?rail=x402&chain=base&live=true&limit=20`),
            get(`${api}/services?q=weather`),
            get(`${api}/services?offset=100`),
          ],
          answers: 'ServiceList: generated_at, counts (total, live, dual_rail over every match), page (limit, offset, next_offset), services. 200, 429, 500.',
        },
        {
          anchor: 'detail',
          method: 'GET',
          path: '/api/v1/services/{id}',
          summary: 'One service with where it is listed and its last 20 checks, newest first. The id is the endpoint host as a slug; case-insensitive.',
          params: [{ name: 'id', text: 'A service id, e.g. api-example-com.' }],
          examples: [get(`${api}/services/${exampleId}`)],
          answers: 'ServiceDetail: the Service fields plus source_urls and probes. 200, 404 not_found, 429, 500.',
        },
        {
          anchor: 'batch-post',
          method: 'POST',
          path: '/api/v1/services/batch',
          summary: 'Up to 100 services by id in one request, in the order asked.',
          params: [{ name: 'ids', text: 'JSON body {"ids": [...]}: 1-100 distinct ids; duplicates ignored.' }],
          examples: [post(`${api}/services/batch`, { ids: [exampleId, 'no-such-service'] })],
          answers: 'BatchResult: requested, found (list shape), missing. 200, 400 invalid_json or invalid_ids, 429, 500.',
        },
        {
          anchor: 'batch-get',
          method: 'GET',
          path: '/api/v1/services/batch',
          summary: 'The same lookup for clients that cannot send a body.',
          params: [{ name: 'ids', text: 'Comma-separated ids, 1-100.' }],
          examples: [get(`${api}/services/batch?ids=${exampleId},no-such-service`)],
          answers: 'BatchResult. 200, 400 missing_query or invalid_ids, 429, 500.',
        },
        {
          anchor: 'stats',
          method: 'GET',
          path: '/api/v1/stats',
          summary: 'Census counts over the whole index.',
          params: [],
          examples: [get(`${api}/stats`)],
          answers: 'Stats: total, live, probed, dual_rail, rails, last_probe_at. 200, 429, 500.',
        },
        {
          anchor: 'submit',
          method: 'POST',
          path: '/api/v1/submit',
          summary: 'Submit a service. It is probed on the next crawl and listed when it answers a payment challenge.',
          params: [
            { name: 'endpoint', text: 'Required: the absolute http(s) URL that answers the challenge.' },
            { name: 'name', text: 'Optional display name.' },
            { name: 'contact', text: 'Optional; kept private, never shown.' },
            { name: 'Idempotency-Key', text: 'Optional header; the same key, or the same endpoint within 24 h, is deduplicated.' },
          ],
          examples: [post(`${api}/submit`, { endpoint: 'https://api.example.com/v1/pay', name: 'Example' }, ['Idempotency-Key: 7f3c2a'])],
          answers: 'SubmitResult: ok, deduplicated, id, status, submission. 200, 400 invalid_json or invalid_endpoint, 429, 500.',
        },
        {
          anchor: 'submission',
          method: 'GET',
          path: '/api/v1/submissions/{id}',
          summary: 'Where a submission stands: queued, listed (with its service id) or rejected (with the reason).',
          params: [{ name: 'id', text: 'The id answered by submit.' }],
          examples: [get(`${api}/submissions/{id}`)],
          answers: 'Submission. 200, 404 not_found, 429, 500.',
        },
        {
          anchor: 'openapi',
          method: 'GET',
          path: '/openapi.json',
          summary: 'The OpenAPI 3.1 description of every route, generated from the same schemas the server validates against.',
          params: [],
          examples: [get(`${siteUrl}/openapi.json`)],
          answers: 'OpenAPI document, version 1.0.0.',
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
      routes: [
        {
          anchor: 'catalog',
          method: 'GET',
          path: '/api/v1/purchase',
          summary: 'The catalog: supported payment terms and every demo service with its parameters and price.',
          params: [],
          examples: [get(`${staging}/purchase`)],
          answers: 'Purchase catalog document.',
        },
        {
          anchor: 'catalog-service',
          method: 'GET',
          path: '/api/v1/purchase/services/{id}',
          summary: 'One catalog entry, e.g. index-demo-market-data.',
          params: [],
          examples: [get(`${staging}/purchase/services/index-demo-market-data`)],
          answers: 'Catalog service entry. 404 not_found for an unknown id.',
        },
        {
          anchor: 'purchases',
          method: 'POST',
          path: '/api/v1/purchases',
          summary: 'Ask for a purchase; answers its id, status, amount, pay_to and the approval URL to give the owner.',
          params: [
            { name: 'service_id', text: 'A catalog id (index-demo-…).' },
            { name: 'params', text: "The service's query parameters; unknown ones are rejected." },
          ],
          examples: [post(`${staging}/purchases`, { service_id: 'index-demo-market-data', params: { asset: 'ETH' } })],
          answers: 'The purchase record. 400 missing_query or invalid_json, 404 not_found.',
        },
        {
          anchor: 'purchase-status',
          method: 'GET',
          path: '/api/v1/purchases/{id}',
          summary: "A purchase's status and, once paid, the service's response. Never a signature.",
          params: [],
          examples: [get(`${staging}/purchases/{id}`)],
          answers: 'The purchase record. 404 not_found.',
        },
      ],
    },
  ];
}
