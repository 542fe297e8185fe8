/**
 * The Open 402 Directory registry snapshot (`registry/snapshot.json` of ArcedeDev/open-402 -> `{ entries[] }`).
 *
 * Only entries whose `protocols` include x402 or MPP (any case) are read; each becomes one DiscoveredEndpoint at
 * the origin `https://<domain>/`, with those rails, no method and an unknown price (the registry gives none).
 * `networks` are human names (`Base`, `Base Sepolia`), CAIP-2 ids or comma-joined lists (`Base, Solana`);
 * `assets` are names (`USD Coin`), symbols or contract addresses, resolved against the entry's chains.
 * `Lightning` and its `BTC` belong to L402, which the index does not cover, so they are dropped; `Stripe` is a
 * fiat method, not a chain (as in `mpp.ts`), so it gives no chain (its `USD` asset stays).
 * Entries of other protocols only are left out; malformed entries are skipped and counted.
 */
import type { Rail } from '../../data/types.ts';
import type { DiscoveredEndpoint, ParseDirectory } from '../discovered.ts';
import { toChainName } from '../../domain/chains.ts';
import { UNKNOWN_PRICE, toAssetSymbol, toSortedUnique } from '../normalize.ts';
import { isRecord, readDomain, readHttpUrl, readText, readTextList } from './read.ts';

const L402_CHAIN = 'lightning';
const L402_ASSET = 'BTC';
const FIAT_METHOD = 'stripe';

function readRails(protocols: unknown): Rail[] {
  const names = readTextList(protocols).map((name) => name.toLowerCase());
  return toSortedUnique(names.filter((name): name is Rail => name === 'x402' || name === 'mpp'));
}

/** An asset's symbol on the first of the entry's chains that knows its address, else by name. */
function toEntryAsset(asset: string, chains: string[]): string {
  for (const chain of chains) {
    const symbol = toAssetSymbol(chain, asset);
    if (symbol !== asset) return symbol;
  }
  return toAssetSymbol('', asset);
}

function readEntry(entry: unknown, sourceUrl: string | null): DiscoveredEndpoint | 'out-of-scope' | null {
  if (!isRecord(entry)) return null;
  const rails = readRails(entry.protocols);
  if (rails.length === 0) return Array.isArray(entry.protocols) ? 'out-of-scope' : null;
  const domain = readDomain(entry.domain);
  if (domain === null) return null;
  const networks = readTextList(entry.networks).flatMap((list) => list.split(','));
  const allChains = networks.map((network) => network.trim()).filter((n) => n !== '').map(toChainName);
  const chains = allChains.filter((chain) => chain !== L402_CHAIN && chain !== FIAT_METHOD);
  const assets = readTextList(entry.assets).map((asset) => toEntryAsset(asset, chains));
  return {
    source: 'open402',
    source_url: readHttpUrl(sourceUrl),
    url: `https://${domain}/`,
    method: null,
    description: null,
    service_name: readText(entry.display_name),
    service_category: null,
    service_description: readText(entry.description),
    rails,
    chains: toSortedUnique(chains),
    assets: toSortedUnique(allChains.includes(L402_CHAIN) ? assets.filter((a) => a !== L402_ASSET) : assets),
    price: UNKNOWN_PRICE,
    facilitator: null,
  };
}

/** Parse an Open 402 registry snapshot; never throws. */
export const parse: ParseDirectory = (json, sourceUrl) => {
  if (!isRecord(json) || !Array.isArray(json.entries)) return { endpoints: [], skipped: 1 };
  const endpoints: DiscoveredEndpoint[] = [];
  let skipped = 0;
  for (const entry of json.entries) {
    const endpoint = readEntry(entry, sourceUrl);
    if (endpoint === null) skipped += 1;
    else if (endpoint !== 'out-of-scope') endpoints.push(endpoint);
  }
  return { endpoints, skipped };
};
