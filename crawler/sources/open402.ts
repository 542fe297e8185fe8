/**
 * The Open 402 Directory registry (`registry/snapshot.json` of ArcedeDev/open-402 -> `{ entries[] }`), read from
 * the seed and, as a default directory, from its published copy every discovery.
 *
 * Only entries whose `protocols` include x402 or MPP (any case) are read; each becomes one DiscoveredEndpoint at
 * the origin `https://<domain>/`, with those rails, no method and an unknown price (the registry gives none).
 * `networks` are human names (`Base`, `Base Sepolia`), CAIP-2 ids or comma-joined lists (`Base, Solana`);
 * `assets` are names (`USD Coin`), symbols or contract addresses, resolved against the entry's chains.
 * `Lightning` and its `BTC` belong to L402, which the index does not cover, so they are dropped; `Stripe` is a
 * fiat method, not a chain (as in `mpp.ts`), so it gives no chain (its `USD` asset stays).
 * Entries of other protocols only are left out; malformed entries are skipped and counted.
 *
 * The registry is a nightly file that has grown and changed; the reader takes the shapes it may plausibly change
 * to: the entries as `entries` (or `domains`, `services`, `items`, `data`) or the document itself, as a list or an
 * object keyed by domain; a domain as a host name or a URL (`domain`, `host`, `url`, `origin`); protocols, networks
 * and assets as a list or a comma-joined text; the name as `display_name`, `name` or `title`.
 */
import type { Rail } from '../../data/types.ts';
import type { DiscoveredEndpoint, ParseDirectory } from '../discovered.ts';
import { toChainName } from '../../domain/chains.ts';
import { UNKNOWN_PRICE, toAssetSymbol, toSortedUnique } from '../normalize.ts';
import { isRecord, readDomain, readHttpUrl, readText, readTextList } from './read.ts';

const ENTRY_LISTS = ['entries', 'domains', 'services', 'items', 'data'] as const;

const L402_CHAIN = 'lightning';
const L402_ASSET = 'BTC';
const FIAT_METHOD = 'stripe';

/** A list of texts given as a list or as one comma-joined text. */
function readTexts(value: unknown): string[] {
  const texts = typeof value === 'string' ? [value] : readTextList(value);
  return texts.flatMap((text) => text.split(',')).map((text) => text.trim()).filter((text) => text !== '');
}

function readRails(protocols: unknown): Rail[] {
  const names = readTexts(protocols).map((name) => name.toLowerCase());
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

/** The entry's host: a bare domain, or the host of a URL (`https://api.example.com/`), under any of its names. */
function readEntryDomain(entry: Record<string, unknown>, key: string | null): string | null {
  for (const value of [entry.domain, entry.host, entry.hostname, entry.url, entry.origin, key]) {
    const url = readHttpUrl(value);
    const domain = readDomain(url === null ? value : new URL(url).host);
    if (domain !== null) return domain;
  }
  return null;
}

function readEntry(entry: unknown, key: string | null, sourceUrl: string | null): DiscoveredEndpoint | 'out-of-scope' | null {
  if (!isRecord(entry)) return null;
  const protocols = entry.protocols ?? entry.protocol;
  const rails = readRails(protocols);
  if (rails.length === 0) return Array.isArray(protocols) || typeof protocols === 'string' ? 'out-of-scope' : null;
  const domain = readEntryDomain(entry, key);
  if (domain === null) return null;
  const allChains = readTexts(entry.networks).map(toChainName);
  const chains = allChains.filter((chain) => chain !== L402_CHAIN && chain !== FIAT_METHOD);
  const assets = readTexts(entry.assets).map((asset) => toEntryAsset(asset, chains));
  return {
    source: 'open402',
    source_url: readHttpUrl(sourceUrl),
    url: `https://${domain}/`,
    method: null,
    description: null,
    service_name: readText(entry.display_name) ?? readText(entry.name) ?? readText(entry.title),
    service_category: null,
    service_description: readText(entry.description),
    rails,
    chains: toSortedUnique(chains),
    assets: toSortedUnique(allChains.includes(L402_CHAIN) ? assets.filter((a) => a !== L402_ASSET) : assets),
    price: UNKNOWN_PRICE,
    facilitator: null,
  };
}

/** The registry's entries, each with the key it is filed under when they are an object keyed by domain; null when none is found. */
function findEntries(json: unknown): Array<[key: string | null, entry: unknown]> | null {
  const list = isRecord(json) ? ENTRY_LISTS.map((name) => json[name]).find((value) => value !== undefined) : json;
  if (Array.isArray(list)) return list.map((entry) => [null, entry]);
  if (isRecord(list)) return Object.entries(list);
  return null;
}

/** Parse an Open 402 registry snapshot; never throws. */
export const parse: ParseDirectory = (json, sourceUrl) => {
  const entries = findEntries(json);
  if (entries === null) return { endpoints: [], skipped: 1 };
  const endpoints: DiscoveredEndpoint[] = [];
  let skipped = 0;
  for (const [key, entry] of entries) {
    const endpoint = readEntry(entry, key, sourceUrl);
    if (endpoint === null) skipped += 1;
    else if (endpoint !== 'out-of-scope') endpoints.push(endpoint);
  }
  return { endpoints, skipped };
};
