/**
 * Origin discovery (protocols.md 4d and 5, discovery.md 4.1 and 4.2): what an origin says about its own paid endpoints.
 * - `GET {origin}/.well-known/x402` -> `{ version, resources: [url, ...] }`: each resource URL on that origin;
 * - `GET {origin}/openapi.json`: each operation with `x-payment-info`, in either shape: MPP's single offer or
 *   `{ offers: [{ intent, method, amount (base units, null when dynamic), currency }] }`, or x402scan's
 *   `{ protocols: ['x402' | { x402: {} } | { mpp: { method, intent, currency } }], price: { mode, amount, currency } }`
 *   (a USD amount in whole dollars). Its `parameters` (query, path, header) and JSON `requestBody` become the input,
 *   its 200 JSON answer the output, `summary` the description, and top-level `x-service-info.docs` the docs URL.
 *   Component refs (`#/components/schemas/...`) are inlined; a schema still holding a ref is dropped whole.
 * Used to expand a submitted bare origin into endpoints, and read at most daily per listed host
 * (crawler/origin-documents.ts); the probe then finds the real terms.
 */
import type { Rail } from '../../data/types.ts';
import type { CallInput, CallOutput, Offer } from '../../domain/schemas.ts';
import { toValidSchema, type JsonSchema } from '../json-schema.ts';
import type { DiscoveredEndpoint } from '../discovered.ts';
import { UNKNOWN_PRICE } from '../normalize.ts';
import { toOffer } from '../offers.ts';
import { isRecord, readHttpUrl, readMethod, readText, readTextList } from './read.ts';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const PARAMETER_PLACES = { query: 'query', path: 'path', header: 'headers' } as const;
/** How deep component refs are inlined; a deeper or cyclic one leaves a ref, and its schema is dropped. */
const MAX_REF_DEPTH = 6;

/** The endpoints a `/.well-known/x402` document lists on `origin` (other origins are ignored). */
export function parseWellKnown(json: unknown, origin: string): DiscoveredEndpoint[] {
  if (!isRecord(json)) return [];
  return readTextList(json.resources)
    .map((resource) => readHttpUrl(resource.startsWith('/') ? `${origin}${resource}` : resource))
    .filter((url): url is string => url !== null && new URL(url).origin === origin)
    .map((url) => toEndpoint(url, null, ['x402'], `${origin}/.well-known/x402`));
}

/** A schema with its `#/components/...` refs replaced by what they point at, as far as MAX_REF_DEPTH. */
function inlineRefs(value: unknown, doc: Record<string, unknown>, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((item) => inlineRefs(item, doc, depth));
  if (!isRecord(value)) return value;
  if (typeof value.$ref === 'string' && value.$ref.startsWith('#/components/') && depth < MAX_REF_DEPTH) {
    const target = value.$ref.slice(2).split('/').reduce<unknown>((at, key) => (isRecord(at) ? at[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
    return target === undefined ? value : inlineRefs(target, doc, depth + 1);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inlineRefs(item, doc, depth)]));
}

function toSchema(value: unknown, doc: Record<string, unknown>): JsonSchema | null {
  const inlined = inlineRefs(value, doc);
  return JSON.stringify(inlined ?? null).includes('"$ref":"#/components/') ? null : toValidSchema(inlined);
}

/** The JSON schema of a content map (`application/json` or any `+json`), and its example. */
function readJsonContent(content: unknown): { schema: unknown; example: unknown } | null {
  if (!isRecord(content)) return null;
  const key = Object.keys(content).find((type) => /^application\/([a-z.+-]*\+)?json/i.test(type));
  const media = key === undefined ? undefined : content[key];
  return isRecord(media) ? { schema: media.schema, example: media.example } : null;
}

/** The input an operation declares: its parameters by place and its JSON request body. */
function readInput(method: string, operation: Record<string, unknown>, shared: unknown[], doc: Record<string, unknown>): CallInput | null {
  const parts: Record<'query' | 'path' | 'headers', { properties: JsonSchema; required: string[] }> = {
    query: { properties: {}, required: [] }, path: { properties: {}, required: [] }, headers: { properties: {}, required: [] },
  };
  const parameters = [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
  for (const raw of parameters) {
    const parameter = inlineRefs(raw, doc);
    if (!isRecord(parameter) || typeof parameter.name !== 'string') continue;
    const place = PARAMETER_PLACES[parameter.in as keyof typeof PARAMETER_PLACES];
    if (place === undefined) continue;
    const schema = isRecord(parameter.schema) ? { ...parameter.schema } : {};
    if (typeof parameter.description === 'string') schema.description = parameter.description;
    parts[place].properties[parameter.name] = schema;
    if (parameter.required === true || parameter.in === 'path') parts[place].required.push(parameter.name);
  }
  const toPart = ({ properties, required }: { properties: JsonSchema; required: string[] }) =>
    Object.keys(properties).length === 0 ? null : toValidSchema({ type: 'object', properties, ...(required.length > 0 ? { required } : {}) });
  const requestBody = inlineRefs(operation.requestBody, doc);
  const body = isRecord(requestBody) ? readJsonContent(requestBody.content) : null;
  const bodySchema = body === null ? null : toSchema(body.schema, doc);
  const input: CallInput = {
    type: 'http', method, query: toPart(parts.query), path: toPart(parts.path), headers: toPart(parts.headers),
    body_type: bodySchema === null ? null : 'json', body: bodySchema, tool: null,
    example: body?.example === undefined ? null : { body: body.example },
  };
  return [input.query, input.path, input.headers, input.body].some((part) => part !== null) ? input : null;
}

function readOutput(operation: Record<string, unknown>, doc: Record<string, unknown>): CallOutput | null {
  const responses = isRecord(operation.responses) ? operation.responses : {};
  const ok = inlineRefs(responses['200'] ?? responses['201'], doc);
  const content = isRecord(ok) ? readJsonContent(ok.content) : null;
  if (content === null) return null;
  const schema = toSchema(content.schema, doc);
  if (schema === null && content.example === undefined) return null;
  return { mime_type: 'application/json', schema, ...(content.example === undefined ? {} : { example: content.example }) };
}

/** MPP's offer form: one offer, or `offers[]`; each an intent and method with a base-units amount (null: dynamic). */
function readMppOffers(info: Record<string, unknown>): Offer[] {
  const offers = Array.isArray(info.offers) ? info.offers : [info];
  return offers.filter(isRecord).flatMap((offer) => {
    const method = readText(offer.method)?.toLowerCase() ?? null;
    if (method === null) return [];
    return [toOffer({
      rail: 'mpp', scheme: readText(offer.intent)?.toLowerCase() ?? 'charge', method, network: null,
      chain: method === 'tempo' ? 'tempo' : null, asset: readText(offer.currency), amount: readText(offer.amount),
      decimals: typeof offer.decimals === 'number' ? offer.decimals : null, unit: readText(offer.unitType), seenIn: 'wellknown',
    })];
  });
}

/** x402scan's form: the protocols it takes, each at `price` (a fixed USD amount; a dynamic one is not stated). */
function readPricedOffers(info: Record<string, unknown>): Offer[] {
  const price = isRecord(info.price) ? info.price : {};
  const fixed = readText(price.mode)?.toLowerCase() !== 'dynamic';
  const usd = fixed && readText(price.currency)?.toUpperCase() === 'USD' ? readText(price.amount) ?? (typeof price.amount === 'number' ? String(price.amount) : null) : null;
  const protocols = Array.isArray(info.protocols) ? info.protocols : [];
  return protocols.flatMap((protocol) => {
    const name = typeof protocol === 'string' ? protocol.toLowerCase() : isRecord(protocol) ? Object.keys(protocol)[0]?.toLowerCase() : undefined;
    const details = isRecord(protocol) && isRecord(protocol[name ?? '']) ? (protocol[name ?? ''] as Record<string, unknown>) : {};
    if (name !== 'x402' && name !== 'mpp') return [];
    return [toOffer({
      rail: name, scheme: name === 'mpp' ? (readText(details.intent)?.toLowerCase() ?? 'charge') : 'exact',
      method: name === 'mpp' ? (readText(details.method)?.toLowerCase() ?? null) : null, network: null, chain: null,
      asset: 'USD', amount: null, decimalAmount: usd, seenIn: 'wellknown',
    })];
  });
}

/** The paid operations an OpenAPI document declares with `x-payment-info`, with their offers, input and output. */
export function parseOpenApi(json: unknown, origin: string): DiscoveredEndpoint[] {
  if (!isRecord(json) || !isRecord(json.paths)) return [];
  const serviceInfo = isRecord(json['x-service-info']) ? json['x-service-info'] : {};
  const docs = isRecord(serviceInfo.docs) ? serviceInfo.docs : {};
  const docsUrl = readHttpUrl(docs.apiReference) ?? readHttpUrl(docs.homepage);
  const endpoints: DiscoveredEndpoint[] = [];
  for (const [path, item] of Object.entries(json.paths)) {
    if (!isRecord(item) || !path.startsWith('/')) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isRecord(operation) || !isRecord(operation['x-payment-info'])) continue;
      const info = operation['x-payment-info'];
      const offers = info.protocols !== undefined || info.price !== undefined ? readPricedOffers(info) : readMppOffers(info);
      const rails = [...new Set<Rail>(offers.map((offer) => offer.rail))];
      const upper = readMethod(method)!;
      const templated = /\{[^}]+\}/.test(path);
      endpoints.push({
        ...toEndpoint(`${origin}${path}`, upper, rails.length > 0 ? rails : ['x402'], `${origin}/openapi.json`),
        description: readText(operation.summary) ?? readText(operation.description),
        route_template: templated ? path.replace(/\{([^}]+)\}/g, ':$1') : null,
        docs_url: docsUrl, tags: readTextList(operation.tags).slice(0, 20), offers,
        input: readInput(upper, operation, shared, json), output: readOutput(operation, json),
      });
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
