import { SOURCE_KINDS, type Sort } from '../../../domain/values.ts';
import { toDirectoryName } from './directories.ts';
import { formatUsd, isolateText, plural } from './format.ts';
import { SITE_NAME } from './site.ts';

/**
 * The home page's query and the words over its results: pure, shared by the server render (home.ts) and the
 * client script (site/src/scripts/search.ts), so it imports no zod: the list's values come from domain/values.ts.
 */

/** Services per page of results, the list API's default page size. */
export const HOME_PAGE_SIZE = 50;

/** The list's orders (domain/schemas.ts `SORTS`), with how the form and the title name them. */
export const HOME_SORTS = [
  { value: 'quality', label: 'Best first', title: '' },
  { value: 'live', label: 'Live first', title: 'live first' },
  { value: 'price', label: 'Cheapest', title: 'cheapest first' },
  { value: 'uptime', label: 'Highest uptime (30 d)', title: 'highest uptime first' },
  { value: 'latency', label: 'Fastest (30 d median)', title: 'fastest first' },
  { value: 'newest', label: 'Newest', title: 'newest first' },
  { value: 'relevance', label: 'Best match (with a search)', title: 'best match first' },
] as const satisfies ReadonlyArray<{ value: Sort; label: string; title: string }>;


export interface HomeQuery {
  q: string;
  rail: string;
  chain: string;
  asset: string;
  /** A category, lower-cased (the list matches it exactly, in any case). */
  category: string;
  /** A directory kind of SOURCE_KINDS, or empty. */
  source: string;
  /** Only services with a known price at or under this many US dollars; null for any price. */
  max_price_usd: number | null;
  live: boolean;
  /** The order asked for; `quality` is the default (with a search, the best match first) and is left out of URLs. */
  sort: Sort;
  offset: number;
}

export const EMPTY_QUERY: HomeQuery = {
  q: '', rail: '', chain: '', asset: '', category: '', source: '', max_price_usd: null, live: false, sort: 'quality', offset: 0,
};

/** The filters offered as facet lists (links with counts) as well as selects. */
export const FACETS = ['rail', 'chain', 'asset'] as const;
export type Facet = (typeof FACETS)[number];

/** The filters offered as selects of the values present, with counts: the facet lists and category and source. */
export const SELECT_FACETS = [...FACETS, 'category', 'source'] as const;
export type SelectFacet = (typeof SELECT_FACETS)[number];

/** A price as the list reads it (domain/list-query.ts): a plain or exponent number, 0 or more; anything else is none. */
function toMaxPrice(text: string): number | null {
  if (!/^[+]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return null;
  const number = Number(text);
  return Number.isFinite(number) && number >= 0 ? number : null;
}

const isSort = (value: string): value is Sort => HOME_SORTS.some((sort) => sort.value === value);
const isSource = (value: string): boolean => (SOURCE_KINDS as readonly string[]).includes(value);

/**
 * The query of a home page URL, read leniently for people: unknown parameters ignored, values trimmed, a sort, source
 * or price the list API would refuse left out (never an error page), offset clamped to a page boundary.
 * @example readHomeQuery(new URLSearchParams('rail=X402&live=true&sort=PRICE&max_price_usd=abc')) // { ..., rail: 'x402', live: true, sort: 'price', max_price_usd: null }
 */
export function readHomeQuery(params: URLSearchParams): HomeQuery {
  const text = (name: string, max = 100) => (params.get(name) ?? '').trim().slice(0, max);
  const live = text('live').toLowerCase();
  const offset = Number.parseInt(text('offset'), 10);
  const sort = text('sort').toLowerCase();
  const source = text('source').toLowerCase();
  return {
    q: text('q', 200),
    rail: text('rail').toLowerCase(),
    chain: text('chain').toLowerCase(),
    asset: text('asset').toLowerCase(),
    category: text('category').toLowerCase(),
    source: isSource(source) ? source : '',
    max_price_usd: toMaxPrice(text('max_price_usd')),
    live: live === 'true' || live === '1' || live === 'on',
    sort: isSort(sort) ? sort : 'quality',
    offset: Number.isFinite(offset) && offset > 0 ? Math.floor(offset / HOME_PAGE_SIZE) * HOME_PAGE_SIZE : 0,
  };
}

/**
 * The URL of the home page with these filters (empty ones left out).
 * @example toHomeHref({ ...EMPTY_QUERY, rail: 'x402' }) // '/?rail=x402'
 */
export function toHomeHref(query: HomeQuery): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.rail) params.set('rail', query.rail);
  if (query.chain) params.set('chain', query.chain);
  if (query.asset) params.set('asset', query.asset);
  if (query.category) params.set('category', query.category);
  if (query.source) params.set('source', query.source);
  if (query.max_price_usd !== null) params.set('max_price_usd', String(query.max_price_usd));
  if (query.live) params.set('live', 'true');
  if (query.sort !== 'quality') params.set('sort', query.sort);
  if (query.offset > 0) params.set('offset', String(query.offset));
  const search = params.toString();
  return search ? `/?${search}` : '/';
}

/**
 * The parameters of `GET /api/v1/services` for a query: what the client script asks the list API for, the same
 * filters and order the server render applies (empty ones and the default order left out).
 * @example toListParams({ ...EMPTY_QUERY, sort: 'price', max_price_usd: 0.01 }, 100).toString() // 'limit=100&offset=0&max_price_usd=0.01&sort=price'
 */
export function toListParams(query: HomeQuery, limit: number): URLSearchParams {
  const params = new URLSearchParams({ limit: String(limit), offset: String(query.offset) });
  for (const [name, value] of new URLSearchParams(toHomeHref({ ...query, offset: 0 }).slice(2))) params.set(name, value);
  return params;
}

/** Whether a home page URL asks for anything but the first, unfiltered page (which is a static file). */
export function isFilteredQuery(query: HomeQuery): boolean {
  return toHomeHref(query) !== '/';
}

/**
 * The title of the home page for a query: the search, the filters (each as its facet list labels it, else as given,
 * isolated because it is a visitor's or a directory's text; a source as its directory is named), the price limit,
 * the order and the page; the site name alone when unfiltered.
 * @example toHomeTitle({ ...EMPTY_QUERY, q: 'weather', rail: 'x402', sort: 'price' }, () => undefined) // '\u2068weather\u2069 · \u2068x402\u2069 · cheapest first'
 */
export function toHomeTitle(query: HomeQuery, labelOf: (facet: Facet, value: string) => string | undefined): string {
  const filters = [
    query.q,
    ...FACETS.map((facet) => (query[facet] ? labelOf(facet, query[facet]) ?? query[facet] : '')),
    query.category,
    query.source ? toDirectoryName(query.source) : '',
  ]
    .filter((text) => text !== '')
    .map(isolateText);
  const sortTitle = HOME_SORTS.find((sort) => sort.value === query.sort)?.title ?? '';
  const parts = [
    ...filters,
    ...(query.max_price_usd !== null ? [`at most ${formatUsd(query.max_price_usd)} per call`] : []),
    ...(query.live ? ['challenge detected'] : []),
    ...(sortTitle ? [sortTitle] : []),
    ...(query.offset > 0 ? [`page ${Math.floor(query.offset / HOME_PAGE_SIZE) + 1}`] : []),
  ];
  return parts.length > 0 ? parts.join(' · ') : SITE_NAME;
}

/** One piece of the pager under the results: a link, or where you are when `href` is null. */
export interface PagerItem {
  text: string;
  href: string | null;
  rel: 'prev' | 'next' | null;
}

/** What the pager reads of one page of the list: its counts' total, whether more follow, how many it shows, its order. */
export interface ListedPage {
  total: number;
  more: boolean;
  shown: number;
  sort: string;
}

/**
 * The pager of a query at its offset: Previous, `Page 2 of 8`, Next. Next follows the list (`more`), never the counts:
 * `relevance` lists a search's partial matches after the counted ones, so it names no last page until it reaches
 * it. Past the last page it says so and links the first page (and the last, where the counts tell it), never
 * another empty one.
 * @example toHomePager({ ...EMPTY_QUERY, offset: 10_000 }, { total: 704, more: false, shown: 0, sort: 'quality' })[1] // { text: 'Last page (15)', href: '/?offset=700', rel: null }
 */
export function toHomePager(query: HomeQuery, listed: ListedPage, pageSize = HOME_PAGE_SIZE): PagerItem[] {
  const counted = Math.max(1, Math.ceil(listed.total / pageSize));
  const page = Math.floor(query.offset / pageSize) + 1;
  const ranked = listed.sort === 'relevance';
  const link = (text: string, offset: number, rel: PagerItem['rel'] = null): PagerItem => ({ text, href: toHomeHref({ ...query, offset }), rel });
  const here = (text: string): PagerItem => ({ text, href: null, rel: null });
  if (listed.shown === 0 && query.offset > 0) {
    if (ranked) return [link('First page', 0), here(`No page ${page}: the results end before it`)];
    return [
      link('First page', 0),
      ...(counted > 1 ? [link(`Last page (${counted})`, (counted - 1) * pageSize)] : []),
      here(`No page ${page}: the last is page ${counted}`),
    ];
  }
  // The last page is this one when no more follow; else the counts' last page for every order but `relevance`.
  const last = !listed.more ? page : ranked ? null : Math.max(counted, page + 1);
  return [
    ...(page > 1 ? [link('← Previous', Math.max(0, query.offset - pageSize), 'prev')] : []),
    here(last === null ? `Page ${page}` : `Page ${page} of ${last}`),
    ...(listed.more ? [link('Next →', query.offset + pageSize, 'next')] : []),
  ];
}

/**
 * The status line over the results. Services listed past `total` are a search's partial matches (holding all its
 * words but one), which the best-match order lists after the counted ones.
 * @example toStatus(703, 1, 100, false) // 'Showing 1–100 of 703 services'
 * @example toStatus(2, 1, 7, true) // 'Showing 1–7: 2 services match every word; 5 services here hold all words but one.'
 */
export function toStatus(total: number, from: number, to: number, filtered: boolean): string {
  if (to < from) {
    if (total === 0) return filtered ? 'No services match these filters.' : 'The index is empty.';
    return `No services on this page; ${plural(total, 'service')} match.`;
  }
  const range = from === to ? `${from}` : `${from}–${to}`;
  const partial = to - Math.max(total, from - 1);
  const match = (count: number) => `${plural(count, 'service')} ${count === 1 ? 'matches' : 'match'}`;
  if (partial > 0) return `Showing ${range}: ${match(total)} every word; ${plural(partial, 'service')} here ${partial === 1 ? 'holds' : 'hold'} all words but one.`;
  return `Showing ${range} of ${plural(total, 'service')}${filtered ? ' matching' : ''}`;
}

/**
 * The counts of a result in one line.
 * @example toCountsText({ total: 703, live: 120, dual_rail: 5 }) // '703 services · 120 live · 5 dual-rail'
 */
export function toCountsText(counts: { total: number; live: number; dual_rail: number }): string {
  return `${plural(counts.total, 'service')} · ${counts.live.toLocaleString('en-US')} live · ${counts.dual_rail.toLocaleString('en-US')} dual-rail`;
}
