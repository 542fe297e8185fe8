/**
 * Deduplication: discovered endpoints -> one service per host.
 *
 * - id: `toServiceId(url)`, unless the listing names its service (`service_id`: the index's own catalog); every
 *   endpoint on the host becomes one of its EndpointInputs, and listings of the same method + URL are merged (terms
 *   united; description and price from the highest-priority source that has one).
 * - rails, chains, assets: the sorted union over the service's endpoints; sources: every distinct (source, url).
 * - name, category, description, by source priority mpp.dev > bazaar > open402 > acp: the first source that gives
 *   a value decides. For name and description, if that source gives several different values for the host (a gateway
 *   such as mpp.orthogonal.com lists many providers), the name falls back to the host and the description to null;
 *   the category is that source's most frequent one (ties: alphabetical). With no value at all, the name is the host.
 * - Main endpoint (the one probed, whose price is the service's), by this order, first wins:
 *   1. a callable URL before a URL template (`:param`, `{param}`, `*`: crawler/template.ts), which is never probed
 *      as written;
 *   2. a known price above zero, then an unknown price, then free;
 *   3. an advertised method before none (a directory naming the method describes a concrete resource);
 *   4. fewer path segments;
 *   5. URL ascending, then method ascending.
 *   Endpoints are listed in that same order, so `endpoints[0]` is the main one.
 * - facilitator: the first one found in that order. Output is sorted by id.
 */
import type { EndpointInput, Price, ServiceInput, SourceRef } from '../data/types.ts';
import { SOURCE_KINDS, type SourceKind } from '../domain/schemas.ts';
import type { DiscoveredEndpoint } from './discovered.ts';
import { toServiceId } from '../domain/service-id.ts';
import { UNKNOWN_PRICE, toSortedUnique } from './normalize.ts';
import { isUrlTemplate } from './template.ts';

type Listed = EndpointInput & { facilitator: string | null };

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Source priority, then URL, method and listing URL, so the result does not depend on the input order. */
function bySourcePriority(a: DiscoveredEndpoint, b: DiscoveredEndpoint): number {
  return (
    SOURCE_KINDS.indexOf(a.source) - SOURCE_KINDS.indexOf(b.source) ||
    compareText(a.url, b.url) ||
    compareText(a.method ?? '', b.method ?? '') ||
    compareText(a.source_url ?? '', b.source_url ?? '')
  );
}

function priceTier(price: Price): number {
  if (price.usd === null) return 1;
  return price.usd > 0 ? 0 : 2;
}


function countPathSegments(url: string): number {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/[?#].*$/, '');
  return path.split('/').filter((segment) => segment !== '').length;
}

/** The main-endpoint order described in the module comment; negative when `a` comes first. */
export function compareForMain(a: EndpointInput, b: EndpointInput): number {
  return (
    Number(isUrlTemplate(a.url)) - Number(isUrlTemplate(b.url)) ||
    priceTier(a.price) - priceTier(b.price) ||
    Number(a.method === null) - Number(b.method === null) ||
    countPathSegments(a.url) - countPathSegments(b.url) ||
    compareText(a.url, b.url) ||
    compareText(a.method ?? '', b.method ?? '')
  );
}

/** One EndpointInput per method + URL; `listings` are sorted by source priority already. */
function toEndpoints(listings: DiscoveredEndpoint[]): Listed[] {
  const byKey = groupBy(listings, (listing) => `${listing.method ?? ''} ${listing.url}`);
  return [...byKey.values()].map((same) => {
    const first = same[0] as DiscoveredEndpoint;
    return {
      url: first.url,
      method: first.method,
      description: same.find((l) => l.description !== null)?.description ?? null,
      price: same.find((l) => l.price.usd !== null)?.price ?? UNKNOWN_PRICE,
      rails: toSortedUnique(same.flatMap((l) => l.rails)),
      chains: toSortedUnique(same.flatMap((l) => l.chains)),
      assets: toSortedUnique(same.flatMap((l) => l.assets)),
      facilitator: same.find((l) => l.facilitator !== null)?.facilitator ?? null,
      sources: toSortedUnique(same.map((l) => l.source)),
      ...exampleBodyOf(same),
      ...callOf(same),
    };
  });
}

/**
 * What the listings say of calling the endpoint: offers from every listing; tags united; the route, docs, input and
 * output of the highest-priority listing giving one, an input with schemas before one with a method alone.
 */
function callOf(listings: DiscoveredEndpoint[]): Pick<EndpointInput, 'route_template' | 'docs_url' | 'tags' | 'offers' | 'input' | 'output'> {
  const first = <T>(read: (l: DiscoveredEndpoint) => T | null | undefined): T | null =>
    listings.map(read).find((value) => value !== null && value !== undefined) ?? null;
  const detailed = first((l) => (l.input && (l.input.query ?? l.input.body ?? l.input.path ?? l.input.tool) !== null ? l.input : null));
  return {
    route_template: first((l) => l.route_template),
    docs_url: first((l) => l.docs_url),
    tags: toSortedUnique(listings.flatMap((l) => l.tags ?? [])),
    offers: listings.flatMap((l) => l.offers ?? []),
    input: detailed ?? first((l) => l.input),
    output: first((l) => l.output),
  };
}

function exampleBodyOf(listings: DiscoveredEndpoint[]): Pick<EndpointInput, 'example_body'> {
  const listing = listings.find((l) => l.example_body !== undefined);
  return listing ? { example_body: listing.example_body } : {};
}

/** The values the highest-priority source with any value gives for a field, or [] when none does. */
function readTopSourceValues(listings: DiscoveredEndpoint[], field: (l: DiscoveredEndpoint) => string | null): string[] {
  for (const source of SOURCE_KINDS) {
    const values = listings.filter((l) => l.source === source).map(field);
    const given = values.filter((value): value is string => value !== null);
    if (given.length > 0) return given;
  }
  return [];
}

function pickAgreed(values: string[]): string | null {
  const distinct = toSortedUnique(values);
  return distinct.length === 1 ? (distinct[0] as string) : null;
}

function pickMostFrequent(values: string[]): string | null {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  const ranked = [...counts].sort(([a, n], [b, m]) => m - n || compareText(a, b));
  return ranked[0]?.[0] ?? null;
}

function toSources(listings: DiscoveredEndpoint[]): SourceRef[] {
  const seen = new Map<string, SourceRef>();
  for (const { source, source_url: url } of listings) seen.set(`${source} ${url ?? ''}`, { source, url });
  return [...seen.values()].sort(
    (a, b) =>
      SOURCE_KINDS.indexOf(a.source as SourceKind) - SOURCE_KINDS.indexOf(b.source as SourceKind) ||
      compareText(a.url ?? '', b.url ?? ''),
  );
}

function toService(id: string, listings: DiscoveredEndpoint[]): ServiceInput {
  const ranked = toEndpoints(listings).sort(compareForMain);
  const main = ranked[0] as Listed;
  const host = new URL(main.url).host;
  const endpoints: EndpointInput[] = ranked.map(({ facilitator: _facilitator, ...endpoint }) => endpoint);
  return {
    id,
    name: pickAgreed(readTopSourceValues(listings, (l) => l.service_name)) ?? host,
    category: pickMostFrequent(readTopSourceValues(listings, (l) => l.service_category)),
    description: pickAgreed(readTopSourceValues(listings, (l) => l.service_description)),
    endpoint: main.url,
    facilitator: ranked.find((e) => e.facilitator !== null)?.facilitator ?? null,
    price: main.price,
    rails: toSortedUnique(ranked.flatMap((e) => e.rails)),
    chains: toSortedUnique(ranked.flatMap((e) => e.chains)),
    assets: toSortedUnique(ranked.flatMap((e) => e.assets)),
    sources: toSources(listings),
    endpoints,
  };
}

/**
 * Group discovered endpoints into services, one per host, sorted by id (rules in the module comment).
 * @example toServices(parse(json, url).endpoints)[0].id // 'api-example-com'
 */
export function toServices(discovered: DiscoveredEndpoint[]): ServiceInput[] {
  const byId = groupBy([...discovered].sort(bySourcePriority), (listing) => listing.service_id ?? toServiceId(listing.url));
  return [...byId.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([id, listings]) => toService(id, listings));
}
