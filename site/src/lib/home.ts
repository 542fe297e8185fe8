import { toFilters } from '../../../api/query.ts';
import type { DB } from '../../../data/db.ts';
import { getAssetLabels, listFacetCounts, type FacetCount } from '../../../data/pages.ts';
import { listServices } from '../../../data/service-list.ts';
import { getStats } from '../../../data/services.ts';
import { toRailLabel } from './directories.ts';
import { formatUtc } from './format.ts';
import {
  HOME_PAGE_SIZE, isFilteredQuery, toCountsText, toHomeHref, toHomePager, toHomeTitle, toStatus, type Facet, type HomeQuery, type PagerItem,
} from './home-query.ts';
import { toHomeRow, type HomeRowView } from './home-row.ts';

/**
 * The home page: the whole index, searchable and filterable by rail, chain, asset, live and free text, with
 * counts. Filters use the list API's own rules (api/query.ts), so a form submitted without JavaScript, the
 * client script calling `/api/v1/services` and the API itself agree on every result.
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
  const filters = toFilters({
    q: query.q || undefined,
    rail: query.rail || undefined,
    chain: query.chain || undefined,
    asset: query.asset || undefined,
    live: query.live ? 'true' : undefined,
  });
  const normalized: HomeQuery = { ...query, chain: filters.chain ?? query.chain };
  const { counts, services } = listServices(db, filters, { limit: HOME_PAGE_SIZE, offset: query.offset });
  const stats = getStats(db);
  const facets = listFacetCounts(db);
  const assetLabels = getAssetLabels(db);
  const options = (kind: Facet, label: (value: string) => string) => toOptions(facets, kind, normalized, label);
  const facetOptions: Record<Facet, FacetOption[]> = {
    rail: options('rail', toRailLabel),
    chain: options('chain', (value) => value),
    asset: options('asset', (value) => assetLabels.get(value) ?? value.toUpperCase()),
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
    counts: { total: counts.total, live: counts.live, dualRail: counts.dual_rail },
    status: toStatus(counts.total, from, to, filtered),
    countsText: toCountsText(counts),
    rows: services.map(toHomeRow),
    pager: toHomePager(normalized, counts.total),
  };
}

function toOptions(facets: FacetCount[], kind: Facet, query: HomeQuery, label: (value: string) => string): FacetOption[] {
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
