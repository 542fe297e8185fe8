/**
 * The fleet's directory documents, in the real shapes: a Bazaar discovery page
 * (`{ x402Version, items, pagination: { limit, offset, total } }`, paged by limit/offset) and the
 * mpp.dev service list (`{ version: 1, services }`).
 */
import { getBehaviourSpec } from './behaviours.ts';
import { TEMPO_USDC, toV1Requirement, toV2Requirement } from './challenges.ts';
import type { FleetService } from './serve.ts';

/** Bazaar page sizes, as CDP clamps them. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const CATEGORIES = ['data', 'ai', 'search', 'media', 'compute', 'web'];

/** Whether a directory lists the service. */
function isListedIn(service: FleetService, directory: 'bazaar' | 'mpp'): boolean {
  const { listedIn } = getBehaviourSpec(service.behaviour);
  return listedIn === 'both' || listedIn === directory;
}

/** The Bazaar item of one listed path of a service. */
function toBazaarItem(service: FleetService, path: string, lastUpdated: string): Record<string, unknown> {
  const { method, body } = getBehaviourSpec(service.behaviour);
  const offer = { ...service.offer, url: `${service.origin}${service.basePath}${path}` };
  if (service.behaviour === 'x402-v1-body') {
    return { resource: offer.url, type: 'http', x402Version: 1, accepts: [toV1Requirement(offer, method)], lastUpdated };
  }
  const input = { type: 'http', method, ...(body === undefined ? {} : { bodyType: 'json', body }) };
  const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' };
  return {
    resource: offer.url,
    type: 'http',
    x402Version: 2,
    accepts: [toV2Requirement(offer)],
    lastUpdated,
    metadata: {},
    ...(method === null ? {} : { extensions: { bazaar: { info: { input }, schema } } }),
  };
}

function readPageParam(value: string | null, fallback: number, max: number): number {
  const number = value === null ? Number.NaN : Number(value);
  return Number.isInteger(number) ? Math.min(Math.max(number, 0), max) : fallback;
}

/**
 * One page of the Bazaar discovery list (`?limit=&offset=`): one item per listed path of each service.
 * @example toBazaarPage(services, new URLSearchParams('limit=20&offset=40'), '2026-01-01T00:00:00.000Z')
 */
export function toBazaarPage(services: FleetService[], query: URLSearchParams, lastUpdated: string): Record<string, unknown> {
  const listed = services
    .filter((service) => isListedIn(service, 'bazaar'))
    .flatMap((service) => service.listedPaths.map((path) => ({ service, path })));
  const limit = Math.max(1, readPageParam(query.get('limit'), DEFAULT_LIMIT, MAX_LIMIT));
  const offset = readPageParam(query.get('offset'), 0, Number.MAX_SAFE_INTEGER);
  const items = listed.slice(offset, offset + limit).map(({ service, path }) => toBazaarItem(service, path, lastUpdated));
  return { x402Version: 2, items, pagination: { limit, offset, total: listed.length } };
}

function toMppService(service: FleetService, realm: string): Record<string, unknown> {
  const { origin } = service;
  const { method } = getBehaviourSpec(service.behaviour);
  const { offer, n } = service;
  const payment = {
    intent: 'charge',
    method: 'tempo',
    currency: TEMPO_USDC,
    decimals: 6,
    description: offer.description,
    amount: offer.amount,
    unitType: 'request',
  };
  const endpoints = service.listedPaths.map((path) => ({ ...(method === null ? {} : { method }), path, description: offer.description, payment }));
  return {
    id: `fleet-${n}`,
    name: `Fleet service ${n}`,
    url: origin,
    serviceUrl: `${origin}${service.basePath}`,
    description: offer.description,
    categories: [CATEGORIES[n % CATEGORIES.length]],
    integration: 'third-party',
    tags: ['fleet'],
    status: 'active',
    methods: { tempo: { intents: ['charge'], assets: [TEMPO_USDC] } },
    realm,
    endpoints,
  };
}

/**
 * The mpp.dev-shaped service list of the fleet.
 * @example toMppDocument(services, 'http://127.0.0.1:4000', '127.0.0.1:4000')
 */
export function toMppDocument(services: FleetService[], realm: string): Record<string, unknown> {
  const listed = services.filter((service) => isListedIn(service, 'mpp'));
  return { version: 1, services: listed.map((service) => toMppService(service, realm)) };
}
