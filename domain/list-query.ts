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

/** The words a boolean query parameter accepts, in any case, with the value each reads as. */
export const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true], ['false', false], ['1', true], ['0', false], ['yes', true], ['no', false],
]);

/** A boolean from one of BOOLEAN_WORDS (or a JSON boolean); any other value is left as it was, for the schema to refuse. */
function toBoolean(value: unknown): unknown {
  const first = firstValue(value);
  if (typeof first === 'boolean') return first;
  const text = toLowerText(first);
  if (text === undefined) return undefined;
  return BOOLEAN_WORDS.get(text) ?? first;
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

/**
 * A strict boolean query parameter: a filter that cannot read its value refuses it (400 naming the parameter and the
 * words it reads) rather than answering as if it had not been asked. Its schema takes a JSON boolean, string or number,
 * so an MCP argument reaches the same words as a REST query does.
 */
export const strictBoolean = (description: string) =>
  z.preprocess(toBoolean, z.boolean({ error: (issue) => allowedValues(issue.input, [...BOOLEAN_WORDS.keys()], ' (in any case)') })
    .optional()).meta({ description, type: ['boolean', 'string', 'integer'] });

const allowedValues = (input: unknown, values: readonly string[], note = '') =>
  `must be one of ${values.join(', ')}${note}; got "${String(input).slice(0, 100)}"`;

/**
 * The list's parameters, as the API documents and validates them. Loose: a parameter it does not know passes through
 * unread, so the answer can name it (`page.ignored`, toIgnored) instead of dropping it without a word.
 */
export const ServiceListQuery = z.looseObject({
  rail: lenient(toLowerText, z.string(), 'x402, mpp or acp.'),
  chain: lenient(toChain, z.string(),
    'A chain name (base, solana, tempo) or its CAIP-2 id (eip155:8453).'),
  asset: lenient(toLowerText, z.string(), 'An asset symbol such as USDC.'),
  live: strictBoolean(
    'true (or 1, yes): only services that answered a payment challenge on the last check; false (or 0, no): the others. In any case.'),
  q: lenient(toWords, z.string(),
    'Free text over name, category, description and endpoints: every word by its stem (scrape finds scraping; stop words such as a, the, to left out), or "quoted phrase" as written, must occur as a substring, in any case. With q the default order is relevance, which then lists the services holding all words but one (beyond counts.total).'),
  category: lenient(toLowerText, z.string(), 'A category, exactly, in any case (data, ai, search, ...).'),
  max_price_usd: z.preprocess(toNumber, z.number({ error: 'must be a number of US dollars, 0 or more' })
    .min(0, { error: 'must be a number of US dollars, 0 or more' }).optional())
    .meta({ description: 'Only services with a known price per call at or under this many US dollars.' }),
  facilitator: lenient(toLowerText, z.string(), 'Part of the facilitator URL, in any case (e.g. coinbase).'),
  source: strictEnum(SOURCE_KINDS, `A directory the service is listed in: ${SOURCE_KINDS.join(', ')}.`),
  flag: strictEnum(FLAGS, `Only services with this flag: ${FLAGS.join(', ')}.`),
  flags: strictEnum(['none'], 'none: only services without any flag.'),
  sort: strictEnum(SORTS,
    'quality (the default without q: live first, then unflagged, then 30-day uptime, then most directories), relevance (the default with q: whole-word and prefix matches in name and description first, then the quality keys), live (live first), price (cheapest first), uptime (30-day uptime, highest first), latency (30-day median, fastest first) or newest (first indexed, newest first). Unknown values last; ties by id.'),
  limit: z.preprocess(toInteger, z.int().default(PAGE_LIMIT.default))
    .meta({ description: 'Page size 1-500, default 100 (clamped; page.limit says what was applied).', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max }),
  offset: z.preprocess(toInteger, z.int().default(0))
    .meta({ description: 'Services to skip, default 0 (below 0 is 0). Follow page.next_offset until it is null.', minimum: 0 }),
});
export type ServiceListQuery = z.output<typeof ServiceListQuery>;

/**
 * The query as the list applies it: paging clamped (limit below 1 -> 1, above 500 -> 500, none or not a number -> 100;
 * offset below 0, none or not a number -> 0) and the order toSort gives.
 * @example toServiceQuery(ServiceListQuery.parse({ limit: '9999', sort: 'relevance' })) // page { limit: 500, offset: 0 }, sort 'quality'
 */
export function toServiceQuery(query: ServiceListQuery): ServiceQuery {
  const { limit, offset, sort, flags, ...rest } = query;
  const filters: ServiceFilters = Object.fromEntries(Object.entries(rest)
    .filter(([name, value]) => value !== undefined && Object.hasOwn(ServiceListQuery.shape, name)));
  if (flags === 'none') filters.no_flags = true;
  return {
    filters,
    page: { limit: Math.min(PAGE_LIMIT.max, Math.max(PAGE_LIMIT.min, limit)), offset: Math.max(0, offset) },
    sort: toSort(sort, filters.q !== undefined),
  };
}

/**
 * The query parameters a list's schema does not know, sorted: what its `page.ignored` names.
 * @example toIgnored(ServiceListQuery, ServiceListQuery.parse({ sort_by: 'price', live: 'yes' })) // ['sort_by']
 */
export function toIgnored(schema: z.ZodObject, query: Record<string, unknown>): string[] {
  return Object.keys(query).filter((name) => !Object.hasOwn(schema.shape, name)).sort();
}

/**
 * The order a list applies: the one asked for, else `relevance` with free text and `quality` without; `relevance`
 * asked without free text is `quality` (nothing to rank by).
 * @example toSort(undefined, true) // 'relevance'
 */
export function toSort(asked: Sort | undefined, hasText: boolean): Sort {
  if (asked === undefined || asked === 'relevance') return hasText ? 'relevance' : 'quality';
  return asked;
}
