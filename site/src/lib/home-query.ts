import { isolateText, plural } from './format.ts';
import { SITE_NAME } from './site.ts';

/**
 * The home page's query and the words over its results: pure, shared by the server render (home.ts) and the
 * client script (site/src/scripts/search.ts).
 */

/** Services per page of results, the list API's default page size. */
export const HOME_PAGE_SIZE = 100;

export interface HomeQuery {
  q: string;
  rail: string;
  chain: string;
  asset: string;
  live: boolean;
  offset: number;
}

export const EMPTY_QUERY: HomeQuery = { q: '', rail: '', chain: '', asset: '', live: false, offset: 0 };

/** The filters offered as facet lists. */
export const FACETS = ['rail', 'chain', 'asset'] as const;
export type Facet = (typeof FACETS)[number];

/**
 * The query of a home page URL: unknown parameters ignored, values trimmed, offset clamped to a page boundary.
 * @example readHomeQuery(new URLSearchParams('rail=X402&live=true')) // { ..., rail: 'x402', live: true }
 */
export function readHomeQuery(params: URLSearchParams): HomeQuery {
  const text = (name: string, max = 100) => (params.get(name) ?? '').trim().slice(0, max);
  const live = text('live').toLowerCase();
  const offset = Number.parseInt(text('offset'), 10);
  return {
    q: text('q', 200),
    rail: text('rail').toLowerCase(),
    chain: text('chain').toLowerCase(),
    asset: text('asset').toLowerCase(),
    live: live === 'true' || live === '1' || live === 'on',
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
  if (query.live) params.set('live', 'true');
  if (query.offset > 0) params.set('offset', String(query.offset));
  const search = params.toString();
  return search ? `/?${search}` : '/';
}

/** Whether a home page URL asks for anything but the first, unfiltered page (which is a static file). */
export function isFilteredQuery(query: HomeQuery): boolean {
  return toHomeHref(query) !== '/';
}

/**
 * The title of the home page for a query: the search, the filters (each as its facet list labels it, else as given,
 * isolated because it is a visitor's or a directory's text) and the page; the site name alone when unfiltered.
 * @example toHomeTitle({ ...EMPTY_QUERY, q: 'weather', rail: 'x402' }, () => undefined) // '\u2068weather\u2069 · \u2068x402\u2069'
 */
export function toHomeTitle(query: HomeQuery, labelOf: (facet: Facet, value: string) => string | undefined): string {
  const filters = [query.q, ...FACETS.map((facet) => (query[facet] ? labelOf(facet, query[facet]) ?? query[facet] : ''))]
    .filter((text) => text !== '')
    .map(isolateText);
  const parts = [...filters, ...(query.live ? ['challenge detected'] : []), ...(query.offset > 0 ? [`page ${Math.floor(query.offset / HOME_PAGE_SIZE) + 1}`] : [])];
  return parts.length > 0 ? parts.join(' · ') : SITE_NAME;
}

/** One piece of the pager under the results: a link, or where you are when `href` is null. */
export interface PagerItem {
  text: string;
  href: string | null;
  rel: 'prev' | 'next' | null;
}

/**
 * The pager of a query at its offset: Previous, `Page 2 of 8`, Next. Past the last page it says so and links the
 * first and the last page, never another empty one.
 * @example toHomePager({ ...EMPTY_QUERY, offset: 10_000 }, 704)[1] // { text: 'Last page (8)', href: '/?offset=700', rel: null }
 */
export function toHomePager(query: HomeQuery, total: number, pageSize = HOME_PAGE_SIZE): PagerItem[] {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.floor(query.offset / pageSize) + 1;
  const link = (text: string, offset: number, rel: PagerItem['rel'] = null): PagerItem => ({ text, href: toHomeHref({ ...query, offset }), rel });
  const here = (text: string): PagerItem => ({ text, href: null, rel: null });
  if (page > pages) {
    return [
      link('First page', 0),
      ...(pages > 1 ? [link(`Last page (${pages})`, (pages - 1) * pageSize)] : []),
      here(`No page ${page}: the last is page ${pages}`),
    ];
  }
  return [
    ...(page > 1 ? [link('← Previous', Math.max(0, query.offset - pageSize), 'prev')] : []),
    here(`Page ${page} of ${pages}`),
    ...(page < pages ? [link('Next →', query.offset + pageSize, 'next')] : []),
  ];
}

/**
 * The status line over the results.
 * @example toStatus(703, 1, 100, false) // 'Showing 1–100 of 703 services'
 */
export function toStatus(total: number, from: number, to: number, filtered: boolean): string {
  if (total === 0) return filtered ? 'No services match these filters.' : 'The index is empty.';
  if (to < from) return `No services on this page; ${plural(total, 'service')} match.`;
  const range = from === to ? `${from}` : `${from}–${to}`;
  return `Showing ${range} of ${plural(total, 'service')}${filtered ? ' matching' : ''}`;
}

/**
 * The counts of a result in one line.
 * @example toCountsText({ total: 703, live: 120, dual_rail: 5 }) // '703 services · 120 live · 5 dual-rail'
 */
export function toCountsText(counts: { total: number; live: number; dual_rail: number }): string {
  return `${plural(counts.total, 'service')} · ${counts.live.toLocaleString('en-US')} live · ${counts.dual_rail.toLocaleString('en-US')} dual-rail`;
}
