/**
 * The mpp.dev service directory (`GET https://mpp.dev/api/services` -> `{ version, services[] }`).
 *
 * Every endpoint of every service becomes one DiscoveredEndpoint: url = `serviceUrl` + `path`, rail `mpp`.
 * Payment terms per method:
 * - `tempo` -> chain `tempo` (the directory's currency is mainnet USDC.e), asset from the currency address;
 * - `stripe` -> no chain (Stripe settles in fiat, it is not a blockchain), asset `USD` from the ISO code `usd`;
 * - any other method -> its name as a chain when it is a known chain (e.g. `solana`), else no chain.
 * A paid endpoint carries the terms of every method its service accepts (an MPP server offers one challenge per
 * configured method), plus its own payment's. A free endpoint (`payment: null`) carries no chains or assets and
 * the price `Free`. A dynamic price is unknown. Each paid endpoint has its one offer (intent, method, a session's
 * price per `unitType`); a path with `:params` is a route template with a path input; docs are the endpoint's, else
 * the service's home page; tags the service's. Malformed services and endpoints are skipped and counted.
 */
import type { Price } from '../../data/types.ts';
import type { DiscoveredEndpoint, ParseDirectory } from '../discovered.ts';
import { toCaip2, toChainName } from '../../domain/chains.ts';
import {
  FREE_PRICE,
  UNKNOWN_PRICE,
  isUsdAsset,
  toAssetSymbol,
  toPrice,
  toSortedUnique,
} from '../normalize.ts';
import { readRouteInput } from '../call-input.ts';
import { toOffer } from '../offers.ts';
import { isRecord, readHttpUrl, readMethod, readText, readTextList } from './read.ts';

interface PaymentTerms {
  chains: string[];
  assets: string[];
}

/** The chain of an MPP payment method, or null for fiat methods and methods we cannot place on a chain. */
function toMethodChain(method: string): string | null {
  const chain = toChainName(method);
  return toCaip2(chain) === null ? null : chain;
}

function toTerms(method: string, currencies: string[]): PaymentTerms {
  const chain = toMethodChain(method);
  return {
    chains: chain === null ? [] : [chain],
    assets: currencies.map((currency) => toAssetSymbol(chain ?? '', currency)),
  };
}

/** The terms of every method a service lists under `methods: { tempo: { assets }, stripe: { assets } }`. */
function readServiceTerms(methods: unknown): PaymentTerms {
  if (!isRecord(methods)) return { chains: [], assets: [] };
  const terms = Object.entries(methods).map(([method, details]) =>
    toTerms(method.toLowerCase(), isRecord(details) ? readTextList(details.assets) : []),
  );
  return { chains: terms.flatMap((t) => t.chains), assets: terms.flatMap((t) => t.assets) };
}

function readPrice(payment: Record<string, unknown>, method: string, currency: string): Price {
  if (payment.dynamic === true) return UNKNOWN_PRICE;
  const symbol = toAssetSymbol(toMethodChain(method) ?? '', currency);
  if (!isUsdAsset(symbol) || typeof payment.decimals !== 'number') return UNKNOWN_PRICE;
  return toPrice(readText(payment.amount), payment.decimals, readText(payment.unitType) ?? undefined);
}

function joinUrl(serviceUrl: string, path: string): string | null {
  return readHttpUrl(`${serviceUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
}

type ServiceFields = Pick<
  DiscoveredEndpoint,
  'source' | 'source_url' | 'service_name' | 'service_category' | 'service_description' | 'rails' | 'facilitator' | 'tags'
> & { docs_url: string | null };

/**
 * The endpoint's offer: an MPP intent (`charge`, `session`) and method; a session's amount is its price per `unitType`
 * (its deposit is not a price); a dynamic amount is not stated.
 */
function readOffer(payment: Record<string, unknown>, method: string, currency: string): NonNullable<DiscoveredEndpoint['offers']>[number] {
  return toOffer({
    rail: 'mpp', scheme: readText(payment.intent)?.toLowerCase() ?? 'charge', method, network: null,
    chain: toMethodChain(method), asset: currency, amount: payment.dynamic === true ? null : readText(payment.amount),
    decimals: typeof payment.decimals === 'number' ? payment.decimals : null, unit: readText(payment.unitType),
    payTo: readText(payment.recipient), seenIn: 'mpp.dev',
  });
}

/** The route a path with `:params` or `*` is, joined to the service URL's own path; null for a plain path. */
function toRouteTemplate(serviceUrl: string, path: string): string | null {
  if (!/[:*{]/.test(path)) return null;
  const base = new URL(serviceUrl).pathname.replace(/\/+$/, '');
  return `${base}/${path.replace(/^\/+/, '')}`;
}

function readEndpoint(
  item: unknown,
  serviceUrl: string,
  serviceTerms: PaymentTerms,
  fields: ServiceFields,
): DiscoveredEndpoint | null {
  if (!isRecord(item)) return null;
  const path = readText(item.path);
  const url = path === null ? null : joinUrl(serviceUrl, path);
  if (path === null || url === null) return null;
  const httpMethod = readMethod(item.method);
  const base = {
    ...fields, url, method: httpMethod, description: readText(item.description),
    docs_url: readHttpUrl(item.docs) ?? fields.docs_url,
    route_template: toRouteTemplate(serviceUrl, path),
    input: readRouteInput(httpMethod, path),
    output: null,
  };
  if (item.payment === null || item.payment === undefined) {
    return { ...base, chains: [], assets: [], price: FREE_PRICE, offers: [] };
  }
  if (!isRecord(item.payment)) return null;
  const method = readText(item.payment.method)?.toLowerCase() ?? null;
  const currency = readText(item.payment.currency);
  if (method === null || currency === null) return null;
  const own = toTerms(method, [currency]);
  return {
    ...base,
    description: base.description ?? readText(item.payment.description),
    chains: toSortedUnique([...serviceTerms.chains, ...own.chains]),
    assets: toSortedUnique([...serviceTerms.assets, ...own.assets]),
    price: readPrice(item.payment, method, currency),
    offers: [readOffer(item.payment, method, currency)],
  };
}

/** The mpp.dev listing of one service: the directory URL with `?ids=<id>`, which returns that entry. */
function toListingUrl(sourceUrl: string | null, id: string | null): string | null {
  if (sourceUrl === null) return null;
  if (id === null) return sourceUrl;
  const url = new URL(sourceUrl);
  url.searchParams.set('ids', id);
  return url.href;
}

/** Parse an mpp.dev `/api/services` document; never throws. */
export const parse: ParseDirectory = (json, sourceUrl) => {
  if (!isRecord(json) || !Array.isArray(json.services)) return { endpoints: [], skipped: 1 };
  const endpoints: DiscoveredEndpoint[] = [];
  let skipped = 0;
  for (const service of json.services) {
    const serviceUrl = isRecord(service) ? readHttpUrl(service.serviceUrl) : null;
    if (!isRecord(service) || serviceUrl === null || !Array.isArray(service.endpoints)) {
      skipped += 1;
      continue;
    }
    const fields: ServiceFields = {
      source: 'mpp.dev',
      source_url: toListingUrl(readHttpUrl(sourceUrl), readText(service.id)),
      service_name: readText(service.name),
      service_category: readTextList(service.categories)[0] ?? null,
      service_description: readText(service.description),
      rails: ['mpp'],
      facilitator: null,
      tags: readTextList(service.tags).slice(0, 20),
      docs_url: isRecord(service.docs) ? readHttpUrl(service.docs.homepage) : null,
    };
    const serviceTerms = readServiceTerms(service.methods);
    for (const item of service.endpoints) {
      const endpoint = readEndpoint(item, serviceUrl, serviceTerms, fields);
      if (endpoint === null) skipped += 1;
      else endpoints.push(endpoint);
    }
  }
  return { endpoints, skipped };
};
