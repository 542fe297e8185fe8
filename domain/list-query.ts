import { z } from 'zod';
import { toChainName } from './chains.ts';
import { FLAGS, SORTS, SOURCE_KINDS, type Flag, type Sort, type SourceKind } from './schemas.ts';

/**
 * The list's query: what `GET /api/v1/services`, the MCP tool `search_services` and the home page accept, read into
 * filters, a page and an order. One schema for all three: REST hands it strings, MCP typed JSON, and both read alike.
 * The parameters of v1 stay lenient (clamped, unknown values ignored or matching nothing); the newer ones are strict,
 * refusing a value outside what they allow.
 */

/** The page sizes the list applies: anything asked is clamped to these. */
export const PAGE_LIMIT = { min: 1, max: 500, default: 100 };

/** The filters of the list, normalized: facet values lower-cased, `chain` as the index names it. */
export interface ServiceFilters {
  rail?: string;
  chain?: string;
  asset?: string;
  live?: boolean;
  q?: string;
  /** Lower-cased; matches a category exactly, in any case. */
  category?: string;
  /** Services with a known price at or under this, in USD. */
  max_price_usd?: number;
  /** Lower-cased; matches a substring of the facilitator URL, in any case. */
  facilitator?: string;
  source?: SourceKind;
  flag?: Flag;
  /** Only services without any flag (`flags=none`). */
  no_flags?: boolean;
}

export interface ServicePage {
  limit: number;
  offset: number;
}

export interface ServiceQuery {
  filters: ServiceFilters;
  page: ServicePage;
  /** The order applied: `relevance` only ever with `q`. */
  sort: Sort;
}

/** The first value of a query parameter given twice, as text; a typed JSON value as it is. */
const firstValue = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value);

/** Text, trimmed; empty text is no value. */
export function toText(value: unknown): string | undefined {
  const first = firstValue(value);
  if (first === undefined || first === null) return undefined;
  const text = String(first).trim();
  return text === '' ? undefined : text;
}

export const toLowerText = (value: unknown) => toText(value)?.toLowerCase();

/** A chain by name or CAIP-2 id, as the index names it (`eip155:8453` -> `base`). */
export function toChain(value: unknown): string | undefined {
  const text = toText(value);
  return text === undefined ? undefined : toChainName(text).toLowerCase();
}

/** An integer from text or a number; anything else is no value. */
export function toInteger(value: unknown): number | undefined {
  const first = firstValue(value);
  const text = typeof first === 'number' ? String(first) : toText(first);
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : Math.sign(number) * Number.MAX_SAFE_INTEGER;
}

/** `live`: true/1 or false/0 in any case (or a JSON boolean); any other value is ignored, like an unknown filter value. */
function toLive(value: unknown): boolean | undefined {
  const first = firstValue(value);
  if (typeof first === 'boolean') return first;
  const text = toLowerText(first);
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  return undefined;
}

/** Free text: control characters read as spaces (a NUL would end SQLite's full-text query early), at most 200 characters. */
export function toWords(value: unknown): string | undefined {
  const text = toText(value)?.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return text ? text.slice(0, 200) : undefined;
}

/** A number from text or JSON, left as it was when it is none, for the schema to refuse. */
export function toNumber(value: unknown): unknown {
  const first = firstValue(value);
  if (typeof first !== 'string') return first;
  const text = first.trim();
  if (text === '') return undefined;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : text;
}

export const lenient = <T>(read: (value: unknown) => T | undefined, schema: z.ZodType<T>, description: string) =>
  z.preprocess(read, schema.optional()).meta({ description });

export const strictEnum = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
  z.preprocess(toLowerText, z.enum(values, { error: (issue) => allowedValues(issue.input, values) }).optional())
    .meta({ description });

const allowedValues = (input: unknown, values: readonly string[]) =>
  `must be one of ${values.join(', ')}; got "${String(input).slice(0, 100)}"`;

/** The list's parameters, as the API documents and validates them. */
export const ServiceListQuery = z.object({
  rail: lenient(toLowerText, z.string(), 'x402, mpp or acp.'),
  chain: lenient(toChain, z.string(),
    'A chain name (base, solana, tempo) or its CAIP-2 id (eip155:8453).'),
  asset: lenient(toLowerText, z.string(), 'An asset symbol such as USDC.'),
  live: lenient(toLive, z.boolean(),
    'true (or 1): only services that answered a payment challenge on the last check; false (or 0): the others.'),
  q: lenient(toWords, z.string(),
    'Free text over name, category, description and endpoints: every word, or "quoted phrase" as written, must occur as a substring, in any case.'),
  category: lenient(toLowerText, z.string(), 'A category, exactly, in any case (data, ai, search, ...).'),
  max_price_usd: z.preprocess(toNumber, z.number({ error: 'must be a number of US dollars, 0 or more' })
    .min(0, { error: 'must be a number of US dollars, 0 or more' }).optional())
    .meta({ description: 'Only services with a known price per call at or under this many US dollars.' }),
  facilitator: lenient(toLowerText, z.string(), 'Part of the facilitator URL, in any case (e.g. coinbase).'),
  source: strictEnum(SOURCE_KINDS, `A directory the service is listed in: ${SOURCE_KINDS.join(', ')}.`),
  flag: strictEnum(FLAGS, `Only services with this flag: ${FLAGS.join(', ')}.`),
  flags: strictEnum(['none'], 'none: only services without any flag.'),
  sort: strictEnum(SORTS,
    'live (default: live first), price (cheapest first), uptime (30-day uptime, highest first), latency (30-day median, fastest first), newest (first indexed, newest first) or relevance (with q: best match first). Unknown values last; ties by id.'),
  limit: z.preprocess(toInteger, z.int().default(PAGE_LIMIT.default))
    .meta({ description: 'Page size 1-500, default 100 (clamped; page.limit says what was applied).', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max }),
  offset: z.preprocess(toInteger, z.int().default(0))
    .meta({ description: 'Services to skip, default 0 (below 0 is 0). Follow page.next_offset until it is null.', minimum: 0 }),
});
export type ServiceListQuery = z.output<typeof ServiceListQuery>;

/**
 * The query as the list applies it: paging clamped (limit below 1 -> 1, above 500 -> 500, none or not a number -> 100;
 * offset below 0, none or not a number -> 0) and `relevance` only with `q`.
 * @example toServiceQuery(ServiceListQuery.parse({ limit: '9999', sort: 'relevance' })) // page { limit: 500, offset: 0 }, sort 'live'
 */
export function toServiceQuery(query: ServiceListQuery): ServiceQuery {
  const { limit, offset, sort, flags, ...rest } = query;
  const filters: ServiceFilters = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  if (flags === 'none') filters.no_flags = true;
  return {
    filters,
    page: { limit: Math.min(PAGE_LIMIT.max, Math.max(PAGE_LIMIT.min, limit)), offset: Math.max(0, offset) },
    sort: sort === undefined || (sort === 'relevance' && !filters.q) ? 'live' : sort,
  };
}
