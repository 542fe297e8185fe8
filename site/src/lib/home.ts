import type { DB } from '../../../data/db.ts';
import { SOURCE_KINDS } from '../../../domain/values.ts';
import { ServiceListQuery, toServiceQuery } from '../../../domain/list-query.ts';
import { getAssetLabels, listFacetCounts, type FacetCount } from '../../../data/pages.ts';
import { listServices } from '../../../data/service-list.ts';
import { getStats } from '../../../data/service-read.ts';
import { toDirectoryName, toRailLabel } from './directories.ts';
import { formatUtc } from './format.ts';
import {
  HOME_PAGE_SIZE, HOME_SORTS, isFilteredQuery, toCountsText, toHomeHref, toHomePager, toHomeTitle, toStatus, type HomeQuery, type PagerItem,
  type SelectFacet,
} from './home-query.ts';
import { toHomeRow, type HomeRowView } from './home-row.ts';

/**
 * The home page: the whole index, searchable and filterable by rail, chain, asset, category, directory, price, live
 * and free text, in any of the list's orders, with counts. Filters and orders use the list API's own rules
 * (domain/list-query.ts), so a form submitted without JavaScript, the client script calling `/api/v1/services` and
 * the API itself agree on every result.
 */

export interface FacetOption {
  value: string;
  label: string;
  count: number;
  live: number;
  /** The home page with this value added to the current filters (or taken out, when selected). */
  href: string;
  selected: boolean;
}

export interface HomeView {
  query: HomeQuery;
  /** The page's own address, empty filters left out: `/?q=weather&rail=x402`, or `/`. */
  path: string;
  /** The page title: the search and filters, each isolated (`weather · x402`), or the site name. */
  title: string;
  filtered: boolean;
  stats: { total: number; live: number; probed: number; dualRail: number; lastCheck: string | null };
  rails: FacetOption[];
  chains: FacetOption[];
  assets: FacetOption[];
  categories: FacetOption[];
  /** The directories (source kinds) services are listed in. */
  sources: FacetOption[];
  /** The orders offered, and the one applied (`relevance` asked without words to rank by reads as `live`). */
  sorts: ReadonlyArray<{ value: string; label: string }>;
  sortApplied: string;
  /** Counts over every service matching the filters. */
  counts: { total: number; live: number; dualRail: number };
  /** `Showing 1–100 of 703 services`, or why nothing is shown. */
  status: string;
  /** `703 services · 120 live · 5 dual-rail`. */
  countsText: string;
  rows: HomeRowView[];
  pager: PagerItem[];
}

/**
 * The home page for a query.
 * @example getHomeView(db, EMPTY_QUERY).status // 'Showing 1–100 of 703 services'
 */
export function getHomeView(db: DB, query: HomeQuery): HomeView {
  // Only values the API accepts reach here (readHomeQuery), so the strict parameters parse; the API's own reading
  // (chain spellings, lower-casing, relevance only with words) then applies to the page as to the API.
  const { filters, sort } = toServiceQuery(ServiceListQuery.parse({
    q: query.q, rail: query.rail, chain: query.chain, asset: query.asset, live: query.live || undefined,
    category: query.category || undefined, source: query.source || undefined, max_price_usd: query.max_price_usd ?? undefined,
    // The default order is the list's own: `relevance` with a search, `quality` without.
    sort: query.sort === 'quality' ? undefined : query.sort,
  }));
  const normalized: HomeQuery = { ...query, chain: filters.chain ?? query.chain };
  const list = listServices(db, { filters, page: { limit: HOME_PAGE_SIZE, offset: query.offset }, sort });
  const { counts, services } = list;
  const stats = getStats(db);
  const facets = listFacetCounts(db);
  const assetLabels = getAssetLabels(db);
  const options = (kind: SelectFacet, label: (value: string) => string) => toOptions(facets, kind, normalized, label);
  const facetOptions: Record<SelectFacet, FacetOption[]> = {
    rail: options('rail', toRailLabel),
    chain: options('chain', (value) => value),
    asset: options('asset', (value) => assetLabels.get(value) ?? value.toUpperCase()),
    category: options('category', (value) => value),
    // Only the kinds the list accepts: another kind stored by a directory could not be asked for.
    source: options('source', toDirectoryName).filter((option) => HOME_SOURCE_SET.has(option.value)),
  };
  const from = query.offset + 1;
  const to = query.offset + services.length;
  const filtered = isFilteredQuery({ ...normalized, offset: 0 });
  return {
    query: normalized,
    path: toHomeHref(normalized),
    title: toHomeTitle(normalized, (facet, value) => facetOptions[facet].find((option) => option.value === value)?.label),
    filtered,
    stats: {
      total: stats.total,
      live: stats.live,
      probed: stats.probed,
      dualRail: stats.dual_rail,
      lastCheck: formatUtc(stats.last_probe_at),
    },
    rails: facetOptions.rail,
    chains: facetOptions.chain,
    assets: facetOptions.asset,
    categories: facetOptions.category,
    sources: facetOptions.source,
    sorts: HOME_SORTS.map(({ value, label }) => ({ value, label })),
    sortApplied: list.sort,
    counts: { total: counts.total, live: counts.live, dualRail: counts.dual_rail },
    status: toStatus(counts.total, from, to, filtered),
    countsText: toCountsText(counts),
    rows: services.map(toHomeRow),
    pager: toHomePager(normalized, { total: counts.total, more: list.more, shown: services.length, sort: list.sort }),
  };
}

const HOME_SOURCE_SET: ReadonlySet<string> = new Set(SOURCE_KINDS);

function toOptions(facets: FacetCount[], kind: SelectFacet, query: HomeQuery, label: (value: string) => string): FacetOption[] {
  const prefix = `${kind}:`;
  const current = query[kind];
  return facets
    .filter((facet) => facet.facet.startsWith(prefix))
    .map((facet) => {
      const value = facet.facet.slice(prefix.length);
      return {
        value,
        label: label(value),
        count: facet.total,
        live: facet.live,
        href: toHomeHref({ ...query, offset: 0, [kind]: value === current ? '' : value }),
        selected: value === current,
      };
    })
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
}
