/**
 * A facilitator's Bazaar discovery page (`GET {facilitator}/discovery/resources` -> `{ x402Version, items[], pagination }`).
 *
 * One DiscoveredEndpoint per HTTP item, rail `x402`. `accepts` entries may be v1-shaped (`maxAmountRequired`,
 * v1 network names, `outputSchema`) or v2-shaped (`amount`, CAIP-2), or mixed; both are read. `lastUpdated`
 * (a unix number or an ISO string) is not needed here and is ignored.
 * - method: `accepts[].outputSchema.input.method`, else `extensions.bazaar.info.input.method`, else null;
 * - price: the cheapest `exact` offer in a known USD stablecoin (decimals come from the known contract);
 *   other schemes (`upto` states a maximum) and unknown assets give an unknown price;
 * - facilitator: the page URL without `/discovery/resources`;
 * - offers: every accepts entry with a network and an asset (crawler/offers.ts; `upto` a ceiling), seen in `bazaar`;
 * - input, output and route template: `extensions.bazaar` (v2) first, else the first v1 `outputSchema` that says
 *   anything (crawler/call-input.ts); tags as listed.
 * Items that are not `http` (e.g. MCP tools) are left out; malformed items are skipped and counted.
 */
import type { Price } from '../../data/types.ts';
import { toChainName } from '../../domain/chains.ts';
import type { DiscoveredEndpoint, ParseDirectory } from '../discovered.ts';
import {
  UNKNOWN_PRICE,
  getAssetDecimals,
  isUsdAsset,
  toAssetSymbol,
  toPrice,
  toSortedUnique,
} from '../normalize.ts';
import { readBazaarV1, readBazaarV2 } from '../call-input.ts';
import { toOffer } from '../offers.ts';
import { isRecord, readHttpUrl, readMethod, readText, readTextList } from './read.ts';

interface Offer {
  chain: string;
  asset: string;
  price: Price;
  method: string | null;
  description: string | null;
}

function readInputMethod(schema: unknown): string | null {
  return isRecord(schema) && isRecord(schema.input) ? readMethod(schema.input.method) : null;
}

function readOffer(accept: unknown): Offer | null {
  if (!isRecord(accept)) return null;
  const network = readText(accept.network);
  const address = readText(accept.asset);
  if (network === null || address === null) return null;
  const chain = toChainName(network);
  const asset = toAssetSymbol(chain, address);
  const decimals = getAssetDecimals(chain, address);
  const amount = readText(accept.amount) ?? readText(accept.maxAmountRequired);
  const fixed = accept.scheme === 'exact' && isUsdAsset(asset) && decimals !== null;
  return {
    chain,
    asset,
    price: fixed ? toPrice(amount, decimals) : UNKNOWN_PRICE,
    method: readInputMethod(accept.outputSchema),
    description: readText(accept.description),
  };
}

function cheapest(prices: Price[]): Price {
  const known = prices.filter((price) => price.usd !== null);
  return known.reduce((best, price) => ((price.usd ?? 0) < (best.usd ?? 0) ? price : best), known[0] ?? UNKNOWN_PRICE);
}

function readBazaarMethod(extensions: unknown): string | null {
  if (!isRecord(extensions) || !isRecord(extensions.bazaar)) return null;
  return readInputMethod(extensions.bazaar.info);
}

/** The example body of the discovery info (v2 `extensions.bazaar.info.input.body`, v1 `outputSchema.input.body`). */
function readExampleBody(item: Record<string, unknown>): Pick<DiscoveredEndpoint, 'example_body'> {
  const infos = [
    isRecord(item.extensions) && isRecord(item.extensions.bazaar) ? item.extensions.bazaar.info : undefined,
    ...(Array.isArray(item.accepts) ? item.accepts.map((accept) => (isRecord(accept) ? accept.outputSchema : undefined)) : []),
  ];
  for (const info of infos) {
    if (isRecord(info) && isRecord(info.input) && info.input.body !== undefined) return { example_body: info.input.body };
  }
  return {};
}

/** The facilitator base URL of a discovery page URL, or null when the URL is not one. */
function toFacilitator(sourceUrl: string | null): string | null {
  const url = readHttpUrl(sourceUrl);
  if (url === null) return null;
  const { origin, pathname } = new URL(url);
  const at = pathname.indexOf('/discovery/resources');
  return at < 0 ? null : `${origin}${pathname.slice(0, at)}`;
}

/** Every accepts entry with a network and an asset, as an Offer seen in the Bazaar. */
function readOffers(accepts: unknown[], facilitator: string | null): NonNullable<DiscoveredEndpoint['offers']> {
  return accepts.flatMap((accept) => {
    if (!isRecord(accept) || readText(accept.network) === null || readText(accept.asset) === null) return [];
    return [toOffer({
      rail: 'x402', scheme: readText(accept.scheme) ?? 'exact', network: readText(accept.network), asset: readText(accept.asset),
      amount: readText(accept.amount) ?? readText(accept.maxAmountRequired), payTo: readText(accept.payTo), facilitator,
      seenIn: 'bazaar',
    })];
  });
}

/**
 * How to call the item: Bazaar v2 `extensions.bazaar` first (the current shape), else the first v1 `outputSchema`
 * that says anything; the route template from v2 only.
 */
function readCall(item: Record<string, unknown>, mimeType: string | null): Pick<DiscoveredEndpoint, 'input' | 'output' | 'route_template'> {
  const v2 = readBazaarV2(isRecord(item.extensions) ? item.extensions.bazaar : undefined, mimeType);
  const accepts = Array.isArray(item.accepts) ? item.accepts : [];
  const v1 = accepts.map((accept) => readBazaarV1(isRecord(accept) ? accept.outputSchema : undefined, v2.routeTemplate))
    .find((read) => read.input !== null || read.output !== null) ?? { input: null, output: null };
  return { input: v2.input ?? v1.input, output: v2.output ?? v1.output, route_template: v2.routeTemplate };
}

function readItem(item: Record<string, unknown>, sourceUrl: string | null): DiscoveredEndpoint | null {
  const resource = isRecord(item.resource) ? item.resource : { url: item.resource };
  const url = readHttpUrl(resource.url);
  const offers = Array.isArray(item.accepts) ? item.accepts.map(readOffer) : [];
  const valid = offers.filter((offer): offer is Offer => offer !== null);
  if (url === null || valid.length === 0) return null;
  const facilitator = toFacilitator(sourceUrl);
  const firstAccept = Array.isArray(item.accepts) && isRecord(item.accepts[0]) ? item.accepts[0] : {};
  const mimeType = readText(resource.mimeType) ?? readText(firstAccept.mimeType);
  return {
    ...readCall(item, mimeType),
    tags: readTextList(item.tags).slice(0, 20),
    docs_url: null,
    offers: readOffers(item.accepts as unknown[], facilitator),
    source: 'bazaar',
    source_url: readHttpUrl(sourceUrl),
    url,
    method: valid.find((offer) => offer.method !== null)?.method ?? readBazaarMethod(item.extensions),
    description:
      readText(item.description) ?? valid.find((offer) => offer.description)?.description ?? readText(resource.description),
    service_name: readText(item.serviceName),
    service_category: null,
    service_description: null,
    rails: ['x402'],
    chains: toSortedUnique(valid.map((offer) => offer.chain)),
    assets: toSortedUnique(valid.map((offer) => offer.asset)),
    price: cheapest(valid.map((offer) => offer.price)),
    facilitator,
    ...readExampleBody(item),
  };
}

/** Parse one `/discovery/resources` page; never throws. */
export const parse: ParseDirectory = (json, sourceUrl) => {
  if (!isRecord(json) || !Array.isArray(json.items)) return { endpoints: [], skipped: 1 };
  const endpoints: DiscoveredEndpoint[] = [];
  let skipped = 0;
  for (const item of json.items) {
    if (isRecord(item) && item.type !== undefined && item.type !== 'http') continue;
    const endpoint = isRecord(item) ? readItem(item, sourceUrl) : null;
    if (endpoint === null) skipped += 1;
    else endpoints.push(endpoint);
  }
  return { endpoints, skipped };
};
