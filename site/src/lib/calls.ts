import { toEndpointId } from '../../../data/endpoint-id.ts';
import { getEndpoint } from '../../../data/endpoints.ts';
import type { DB } from '../../../data/db.ts';
import { toExampleObject } from '../../../domain/call-example.ts';
import { toOfferDisplay } from '../../../domain/offers.ts';
import type { Endpoint, Offer } from '../../../domain/schemas.ts';
import { shellQuote, toBaseUrl, toPathOrUrl } from './format.ts';

/*
 * The listing page's "How to call" section: for each endpoint of the page, its method and URL, a parameter table, a
 * ready curl with example values (the directory's, else made from the schema: domain/call-example.ts), its offers
 * with scheme and unit, and its output example. Every value is third-party text: the page prints it as text, never
 * as markup, and bounds what it shows.
 */

/** The most characters of an output example shown; the rest is cut with a note. */
const MAX_EXAMPLE_CHARS = 4_000;

export interface ParamView {
  name: string;
  where: 'path' | 'query' | 'header' | 'body';
  type: string;
  required: boolean;
  description: string | null;
}

export interface CallView {
  id: string;
  /** `POST /v1/search`. */
  title: string;
  url: string;
  params: ParamView[];
  curl: string;
  /** `up to $0.05 / call · x402 upto · base USDC`, one per offer. */
  offers: string[];
  outputExample: string | null;
}

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

function toParams(schema: Schema | null, where: ParamView['where']): ParamView[] {
  if (schema === null || !isSchema(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const field = isSchema(property) ? property : {};
    const type = Array.isArray(field.type) ? field.type.join(' or ') : typeof field.type === 'string' ? field.type : 'any';
    const enums = Array.isArray(field.enum) ? ` (${field.enum.slice(0, 8).map((value) => JSON.stringify(value)).join(', ')})` : '';
    return { name, where, type: `${type}${enums}`, required: required.has(name), description: typeof field.description === 'string' ? field.description : null };
  });
}

/** The URL with each `:param` or `{param}` of its route filled with an example value, and the example query. */
function toCallUrl(endpoint: Endpoint, path: Record<string, unknown>, query: Record<string, unknown>): string {
  // A listed URL keeps `{param}` percent-encoded (`%7Bparam%7D`).
  const params = /:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}|%7B([A-Za-z_][A-Za-z0-9_]*)%7D/gi;
  const filled = endpoint.url.replace(params, (whole, a: string | undefined, b: string | undefined, c: string | undefined) => {
    const name = (a ?? b ?? c)!;
    return name in path ? encodeURIComponent(String(path[name])) : whole;
  });
  const url = new URL(filled);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  return url.href;
}

/** A ready curl: the method, the URL with example values, and a JSON, form or text body where the call takes one. */
export function toCallCurl(endpoint: Endpoint): string {
  const input = endpoint.input;
  const method = (input?.method ?? endpoint.method ?? 'GET').toUpperCase();
  const query = isSchema(input?.example?.query) ? input.example.query : toExampleObject(input?.query);
  const url = /^https?:\/\//i.test(endpoint.url) ? toCallUrl(endpoint, toExampleObject(input?.path), query) : endpoint.url;
  const lines = [`curl -i ${shellQuote(url)}${method === 'GET' ? '' : ` -X ${shellQuote(method)}`}`];
  const hasBody = input?.body !== null && input?.body !== undefined || input?.example?.body !== undefined;
  if (input && hasBody) {
    const body = input.example?.body ?? toExampleObject(input.body);
    if (input.body_type === 'form-data' && isSchema(body)) {
      for (const [name, value] of Object.entries(body)) lines.push(`-F ${shellQuote(`${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)}`);
    } else {
      const text = input.body_type === 'text' && typeof body === 'string' ? body : JSON.stringify(body);
      lines.push(`-H ${shellQuote(`content-type: ${input.body_type === 'text' ? 'text/plain' : 'application/json'}`)}`, `-d ${shellQuote(text)}`);
    }
  }
  return lines.join(' \\\n  ');
}

/** An offer in words: its price with scheme and unit, its rail and scheme, where it settles. */
export function toOfferText(offer: Offer): string {
  const price = toOfferDisplay(offer) ?? (offer.amount.atomic === null ? 'price set per call' : `${offer.amount.decimal ?? offer.amount.atomic} ${offer.asset.symbol ?? ''} / ${offer.unit}`.trim());
  const how = [offer.rail === 'mpp' ? `MPP ${offer.method ?? ''} ${offer.scheme}` : `x402 ${offer.scheme}`, [offer.chain, offer.asset.symbol].filter(Boolean).join(' ')]
    .map((part) => part.replace(/\s+/g, ' ').trim()).filter(Boolean);
  const seen = offer.seen_in === 'challenge' ? 'from its last challenge' : `listed by ${offer.seen_in}`;
  return `${price} · ${how.join(' · ')} · ${seen}`;
}

function toOutputExample(endpoint: Endpoint): string | null {
  const example = endpoint.output?.example;
  if (example === undefined) return null;
  const text = typeof example === 'string' ? example : JSON.stringify(example, null, 2);
  return text.length > MAX_EXAMPLE_CHARS ? `${text.slice(0, MAX_EXAMPLE_CHARS)}\n… (cut: the example is longer)` : text;
}

/** How to call one endpoint, as the page shows it. */
export function toCallView(endpoint: Endpoint): CallView {
  const input = endpoint.input;
  const params = input === null ? [] : [
    ...toParams(input.path, 'path'), ...toParams(input.query, 'query'), ...toParams(input.headers, 'header'), ...toParams(input.body, 'body'),
  ];
  const method = (input?.method ?? endpoint.method ?? 'GET').toUpperCase();
  return {
    id: endpoint.id,
    title: `${method} ${endpoint.route_template ?? toPathOrUrl(endpoint.url, toBaseUrl(endpoint.url))}`,
    url: endpoint.url,
    params,
    curl: toCallCurl(endpoint),
    offers: endpoint.offers.map(toOfferText),
    outputExample: toOutputExample(endpoint),
  };
}

/** The call views of a page's endpoint rows, in their order. */
export function listCallViews(db: DB, serviceId: string, rows: ReadonlyArray<{ method: string | null; url: string }>): CallView[] {
  return rows.flatMap((row) => {
    const endpoint = getEndpoint(db, toEndpointId(serviceId, row.method, row.url));
    return endpoint === null ? [] : [toCallView(endpoint)];
  });
}
