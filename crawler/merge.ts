import type { EndpointInput, ServiceInput } from '../data/types.ts';

/**
 * Merges a service found by this crawl with what the index already holds for the same host.
 * - Listings from sources this crawl did not read in full (e.g. the seed's registry entries, submissions, a
 *   directory that failed while others of its kind answered) are kept: their endpoints and source references join
 *   the new ones. Listings of a kind this crawl read in full are replaced, so an endpoint a directory dropped goes away.
 * - The main endpoint stays the stored one while it is still listed, so probes and pages do not jump around.
 * @example mergeWithStored(found, getServiceInput(db, found.id), new Set(['bazaar']))
 */
export function mergeWithStored(found: ServiceInput, stored: ServiceInput | null, crawledKinds: ReadonlySet<string>): ServiceInput {
  if (!stored) return found;
  const refKey = (ref: ServiceInput['sources'][number]) => `${ref.source} ${ref.url ?? ''}`;
  const foundRefs = new Set(found.sources.map(refKey));
  // A directory read only in part lists the host again, but its unread pages may hold more of the host's endpoints.
  const uncrawled = stored.sources.filter((ref) => !crawledKinds.has(ref.source));
  const keptSources = uncrawled.filter((ref) => !foundRefs.has(refKey(ref)));
  const merged: ServiceInput =
    uncrawled.length === 0
      ? found
      : {
          ...found,
          sources: [...found.sources, ...keptSources],
          endpoints: unionEndpoints(found.endpoints, stored.endpoints),
          rails: union(found.rails, stored.rails),
          chains: union(found.chains, stored.chains),
          assets: union(found.assets, stored.assets),
        };
  const main = merged.endpoints.find((e) => e.url === stored.endpoint);
  return main ? { ...merged, endpoint: main.url, price: main.price } : merged;
}

function unionEndpoints(first: EndpointInput[], second: EndpointInput[]): EndpointInput[] {
  const key = (e: EndpointInput) => `${e.method ?? ''} ${e.url}`;
  const seen = new Set(first.map(key));
  return [...first, ...second.filter((e) => !seen.has(key(e)))];
}

function union<T extends string>(a: readonly T[], b: readonly T[]): T[] {
  return [...new Set([...a, ...b])].sort();
}
