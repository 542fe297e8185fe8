import { z } from 'zod';
import {
  PAGE_LIMIT, lenient, strictEnum, toChain, toInteger, toLowerText, toNumber, toWords, type ServicePage,
} from './list-query.ts';
import { ENDPOINT_SORTS, FLAGS, type EndpointSort, type Flag } from './schemas.ts';

/**
 * The endpoint list's query (`GET /api/v1/endpoints`, the MCP tool `search_endpoints`): one schema for REST's strings
 * and MCP's typed JSON. Its parameters are new, so they are strict: a boolean or an order outside what it allows
 * answers 400 naming the parameter; unknown filter values (`rail=nosuch`) match nothing.
 */

export interface EndpointFilters {
  q?: string;
  rail?: string;
  chain?: string;
  asset?: string;
  live?: boolean;
  max_price_usd?: number;
  scheme?: string;
  service?: string;
  has_input?: boolean;
  flag?: Flag;
  no_flags?: boolean;
}

export interface EndpointQuery {
  filters: EndpointFilters;
  page: ServicePage;
  sort: EndpointSort;
}

const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = { true: true, '1': true, yes: true, false: false, '0': false, no: false };

/** A boolean: true/false/1/0/yes/no in any case, or a JSON boolean; anything else is left for the schema to refuse. */
function toBoolean(value: unknown): unknown {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'boolean') return first;
  const text = toLowerText(first);
  if (text === undefined) return undefined;
  return BOOLEAN_WORDS[text] ?? text;
}

const strictBoolean = (description: string) =>
  z.preprocess(toBoolean, z.boolean({ error: (issue) => `must be one of true, false, 1, 0, yes, no; got "${String(issue.input).slice(0, 100)}"` })
    .optional()).meta({ description });

export const EndpointListQuery = z.looseObject({
  q: lenient(toWords, z.string(),
    "Every word must occur in the endpoint's description, URL path or tags, or its service's name or description."),
  rail: lenient(toLowerText, z.string(), 'x402, mpp or acp.'),
  chain: lenient(toChain, z.string(), 'A chain name (base, tempo) or its CAIP-2 id (eip155:8453).'),
  asset: lenient(toLowerText, z.string(), 'An asset symbol such as USDC.'),
  live: strictBoolean('true: only endpoints whose last check found a challenge; false: the others.'),
  max_price_usd: z.preprocess(toNumber, z.number({ error: 'must be a number of US dollars, 0 or more' })
    .min(0, { error: 'must be a number of US dollars, 0 or more' }).optional())
    .meta({ description: "Only endpoints whose cheapest offer is at or under this many US dollars." }),
  scheme: lenient(toLowerText, z.string(), 'An x402 scheme (exact, upto) or MPP intent (charge, session).'),
  service: lenient(toLowerText, z.string(), 'Only the endpoints of this service id.'),
  has_input: strictBoolean('true: only endpoints with a known input; false: the others.'),
  flag: strictEnum(FLAGS, `Only endpoints of services with this flag.`),
  flags: strictEnum(['none'], 'none: only endpoints of services without any flag.'),
  sort: strictEnum(ENDPOINT_SORTS,
    'quality (default: live, unflagged, uptime, listings), relevance (the default with q), price (cheapest first) or latency.'),
  limit: z.preprocess(toInteger, z.int().default(PAGE_LIMIT.default))
    .meta({ description: 'Page size 1-500, default 100 (clamped).', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max }),
  offset: z.preprocess(toInteger, z.int().default(0)).meta({ description: 'Endpoints to skip, default 0.', minimum: 0 }),
});
export type EndpointListQuery = z.output<typeof EndpointListQuery>;

const KNOWN = new Set(Object.keys(EndpointListQuery.shape));

/**
 * The query as the list applies it, and the parameters it does not know (sorted): paging clamped as the service
 * list's is; `relevance` only with `q`, and the default with it.
 * @example toEndpointQuery(EndpointListQuery.parse({ q: 'search', limit: '9999', colour: 'red' })) // sort relevance, limit 500, ignored ['colour']
 */
export function toEndpointQuery(query: EndpointListQuery): EndpointQuery & { ignored: string[] } {
  const { limit, offset, sort, flags, ...rest } = query;
  const ignored = Object.keys(rest).filter((key) => !KNOWN.has(key)).sort();
  const filters: EndpointFilters = Object.fromEntries(Object.entries(rest)
    .filter(([key, value]) => KNOWN.has(key) && value !== undefined));
  if (flags === 'none') filters.no_flags = true;
  const applied: EndpointSort = sort === undefined ? (filters.q ? 'relevance' : 'quality') : sort === 'relevance' && !filters.q ? 'quality' : sort;
  return {
    filters, ignored, sort: applied,
    page: { limit: Math.min(PAGE_LIMIT.max, Math.max(PAGE_LIMIT.min, limit)), offset: Math.max(0, offset) },
  };
}
