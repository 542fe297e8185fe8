/**
 * The filter facets of a service: one `service_facets` row (and one `facet_tallies` count) per value it matches, so
 * the list filters on them by index and counts them without a scan (data/service-list.ts, data/migrations/008).
 */

/** What a service's facets are made of; a missing part has no facets. */
export interface FacetSource {
  rails: readonly string[];
  chains: readonly string[];
  assets: readonly string[];
  category?: string | null;
  /** Source kinds (`bazaar`, `mpp.dev`), not listing URLs. */
  sources?: readonly string[];
  flags?: readonly string[];
}

/**
 * The facet keys a service matches, values lower-cased: `rail:x402`, `chain:base`, `asset:usdc`, `category:data`,
 * `source:bazaar`, `flag:wildcard_402`. An empty category has none.
 * @example toFacets({ rails: ['x402'], chains: ['base'], assets: ['USDC'], category: 'AI' }) // ['rail:x402', 'chain:base', 'asset:usdc', 'category:ai']
 */
export function toFacets(input: FacetSource): string[] {
  return [
    ...input.rails.map((rail) => `rail:${rail.toLowerCase()}`),
    ...input.chains.map((chain) => `chain:${chain.toLowerCase()}`),
    ...input.assets.map((asset) => `asset:${asset.toLowerCase()}`),
    ...(input.category ? [`category:${input.category.toLowerCase()}`] : []),
    ...(input.sources ?? []).map((source) => `source:${source.toLowerCase()}`),
    ...(input.flags ?? []).map((flag) => `flag:${flag.toLowerCase()}`),
  ];
}
