/**
 * ACP (Agentic Commerce Protocol) merchants from the curated list `acp-merchants.json`: merchants publicly
 * announced as taking ACP checkouts, each `{ domain, merchant, announced_by, announcement_url, announced_on }`.
 *
 * ACP has no 402 challenge and no public directory, so each merchant becomes one DiscoveredEndpoint at the
 * pseudo-URL `acp://<domain>` (never probed), rail `acp`, no chains or assets (payment is card-style), price unknown.
 * The listing URL is the announcement; an entry without a merchant, domain, announcer or announcement URL is
 * malformed (unsourced) and is skipped and counted. `sourceUrl` is not needed: each entry carries its own source.
 */
import type { DiscoveredEndpoint, ParseDirectory } from '../discovered.ts';
import { UNKNOWN_PRICE } from '../normalize.ts';
import { isRecord, readDomain, readHttpUrl, readText } from './read.ts';

function readMerchant(entry: unknown): DiscoveredEndpoint | null {
  if (!isRecord(entry)) return null;
  const domain = readDomain(entry.domain);
  const merchant = readText(entry.merchant);
  const announcedBy = readText(entry.announced_by);
  const announcementUrl = readHttpUrl(entry.announcement_url);
  if (domain === null || merchant === null || announcedBy === null || announcementUrl === null) return null;
  const announcedOn = readText(entry.announced_on);
  return {
    source: 'acp',
    source_url: announcementUrl,
    url: `acp://${domain}`,
    method: null,
    description: null,
    service_name: merchant,
    service_category: 'commerce',
    service_description: `Announced by ${announcedBy}${announcedOn === null ? '' : ` on ${announcedOn}`} as taking Agentic Commerce Protocol checkouts.`,
    rails: ['acp'],
    chains: [],
    assets: [],
    price: UNKNOWN_PRICE,
    facilitator: null,
  };
}

/** Parse the curated ACP merchant list (a JSON array); never throws. */
export const parse: ParseDirectory = (json) => {
  if (!Array.isArray(json)) return { endpoints: [], skipped: 1 };
  const endpoints: DiscoveredEndpoint[] = [];
  let skipped = 0;
  for (const entry of json) {
    const endpoint = readMerchant(entry);
    if (endpoint === null) skipped += 1;
    else endpoints.push(endpoint);
  }
  return { endpoints, skipped };
};
