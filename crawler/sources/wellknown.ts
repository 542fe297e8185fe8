/**
 * Origin discovery (protocols.md 4d and 5): what an origin says about its own paid endpoints.
 * - `GET {origin}/.well-known/x402` -> `{ version, resources: [url, ...] }`: each resource URL on that origin;
 * - `GET {origin}/openapi.json`: each operation with `x-payment-info` (x402scan's `{ protocols, price }` or MPP's
 *   `{ offers }` / single offer), with its method; rails from `protocols` when given, else x402.
 * Used to expand a submitted bare origin into endpoints; the probe then finds the real terms.
 */
import type { Rail } from '../../data/types.ts';
import type { DiscoveredEndpoint } from '../discovered.ts';
import { UNKNOWN_PRICE } from '../normalize.ts';
import { isRecord, readHttpUrl, readTextList } from './read.ts';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The endpoints a `/.well-known/x402` document lists on `origin` (other origins are ignored). */
export function parseWellKnown(json: unknown, origin: string): DiscoveredEndpoint[] {
  if (!isRecord(json)) return [];
  return readTextList(json.resources)
    .map((resource) => readHttpUrl(resource.startsWith('/') ? `${origin}${resource}` : resource))
    .filter((url): url is string => url !== null && new URL(url).origin === origin)
    .map((url) => toEndpoint(url, null, ['x402'], `${origin}/.well-known/x402`));
}

/** The paid operations an OpenAPI document declares with `x-payment-info`. */
export function parseOpenApi(json: unknown, origin: string): DiscoveredEndpoint[] {
  if (!isRecord(json) || !isRecord(json.paths)) return [];
  const endpoints: DiscoveredEndpoint[] = [];
  for (const [path, item] of Object.entries(json.paths)) {
    if (!isRecord(item) || !path.startsWith('/')) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isRecord(operation) || !isRecord(operation['x-payment-info'])) continue;
      const info = operation['x-payment-info'];
      const offers = Array.isArray(info.offers) ? info.offers : [info];
      const methods = offers.filter(isRecord).map((offer) => offer.method);
      const protocols = readTextList(info.protocols).map((p) => p.toLowerCase());
      const rails: Rail[] = protocols.includes('mpp') || methods.some((m) => typeof m === 'string') ? ['mpp'] : [];
      if (protocols.includes('x402') || rails.length === 0) rails.unshift('x402');
      endpoints.push(toEndpoint(`${origin}${path}`, method.toUpperCase(), rails, `${origin}/openapi.json`));
    }
  }
  return endpoints;
}

function toEndpoint(url: string, method: string | null, rails: Rail[], sourceUrl: string): DiscoveredEndpoint {
  return {
    source: 'wellknown', source_url: sourceUrl, url, method, description: null,
    service_name: null, service_category: null, service_description: null,
    rails, chains: [], assets: [], price: UNKNOWN_PRICE, facilitator: null,
  };
}
