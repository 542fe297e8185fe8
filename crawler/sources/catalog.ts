/**
 * The index's own purchase-preview catalog (`GET {staging}/api/v1/purchase` -> `{ services[] }`): every demo
 * service becomes one DiscoveredEndpoint at its example URL (the demo services validate parameters before their
 * 402, so a bare endpoint would answer 400), rail x402, Base Sepolia USDC, price from the atomic amount.
 * They all share the staging host, so dedupe lists them as the endpoints of one service: the index itself.
 */
import type { DiscoveredEndpoint, ParseDirectory } from '../discovered.ts';
import { toPrice } from '../normalize.ts';
import { isRecord, readHttpUrl, readText } from './read.ts';

const USDC_DECIMALS = 6;

/** What the index's own catalog is called in lists and on its listing page. */
export const CATALOG_NAME = 'Payable-Service Index demo services (testnet)';
/**
 * Its id: one listing whatever origin the server runs on (an id from the host, `127-0-0-1-4321`, would list a second
 * copy after a restart on another port). Not a host slug any public host could have: it has no dot-separated TLD part.
 */
export const CATALOG_ID = 'payable-service-index-demo';

function readService(entry: unknown, sourceUrl: string | null): DiscoveredEndpoint | null {
  if (!isRecord(entry) || !isRecord(entry.request) || !isRecord(entry.payment)) return null;
  const url = readHttpUrl(entry.request.example_url) ?? readHttpUrl(entry.request.endpoint);
  const amount = isRecord(entry.payment.amount) ? readText(entry.payment.amount.atomic) : null;
  if (url === null) return null;
  return {
    source: 'catalog',
    source_url: sourceUrl,
    url,
    method: readText(entry.request.method)?.toUpperCase() ?? 'GET',
    description: readText(entry.description),
    // One name for the whole catalog, whatever origin it runs on: the demo services share a host, and dedupe keeps a
    // name only when the host's listings agree on it (else the host, e.g. `127.0.0.1:4321`, would be the name).
    service_name: CATALOG_NAME,
    service_id: CATALOG_ID,
    service_category: 'demo',
    service_description: 'Testnet purchase-preview demo services of the index itself, paid in Base Sepolia USDC over x402.',
    rails: ['x402'],
    chains: ['base-sepolia'],
    assets: ['USDC'],
    price: toPrice(amount, USDC_DECIMALS),
    facilitator: null,
  };
}

/** Parse the catalog document; never throws. */
export const parse: ParseDirectory = (json, sourceUrl) => {
  if (!isRecord(json) || !Array.isArray(json.services)) return { endpoints: [], skipped: 1 };
  const read = json.services.map((entry) => readService(entry, sourceUrl));
  const endpoints = read.filter((e): e is DiscoveredEndpoint => e !== null);
  return { endpoints, skipped: read.length - endpoints.length };
};
