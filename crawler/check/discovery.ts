/**
 * What a host publishes for discovery, read for a seller's check: `/.well-known/x402` (the discovery manifest of
 * x402 PR #2979, the generated `items` form of PR #2646, or x402scan's legacy `{version, resources}`), `/openapi.json`
 * with `x-payment-info` (the MPP discovery draft's offer forms and the MPPScan `protocols`/`price` form) and
 * `/.well-known/acp.json` (discovery.md 4.1-4.3); found or not, valid or not, the prices each states, and where a
 * price disagrees with the live challenge. Each document is fetched once through the SSRF-guarded dispatcher, within
 * the discovery drafts' limits (10 s, 256 KiB).
 */
import type { Dispatcher } from 'undici';
import type { DiscoveryDocument, DiscoveryKind, Problem } from '../../domain/check.ts';
import type { Offer } from '../../domain/schemas.ts';
import { DirectoryError, fetchJson } from '../fetch-json.ts';
import { toMppOffer, toX402Offers } from './offers.ts';
import { isRecord, readText } from '../sources/read.ts';
import { toProblem } from '../../domain/problems.ts';

export const DISCOVERY_TIMEOUT_MS = 10_000;
export const MAX_DISCOVERY_BYTES = 256 * 1024;

const PATHS: Readonly<Record<DiscoveryKind, string>> = {
  x402_well_known: '/.well-known/x402',
  openapi: '/openapi.json',
  acp: '/.well-known/acp.json',
};

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** A price a document states, for one URL, and where in the document. */
interface StatedOffer {
  offer: Offer;
  url: string | null;
  where: string;
}

type Reading = { valid: true; offers: StatedOffer[] } | { valid: false; detail: string };

/** The documents of one host, and the disagreements found. */
export interface HostDiscovery {
  documents: Record<DiscoveryKind, DiscoveryDocument>;
  problems: Problem[];
}

/**
 * Reads the host's discovery documents and compares their prices for `checkedUrl` with the live offers.
 * @example const { documents, problems } = await readHostDiscovery(url, liveOffers, agent.dispatcher)
 */
export async function readHostDiscovery(checkedUrl: string, liveOffers: Offer[], dispatcher: Dispatcher): Promise<HostDiscovery> {
  const origin = new URL(checkedUrl).origin;
  const kinds = Object.keys(PATHS) as DiscoveryKind[];
  const read = await Promise.all(kinds.map(async (kind) => [kind, await readDocument(kind, `${origin}${PATHS[kind]}`, dispatcher)] as const));
  const documents = Object.fromEntries(read.map(([kind, { document }]) => [kind, document])) as Record<DiscoveryKind, DiscoveryDocument>;
  const stated = read.flatMap(([, { stated }]) => stated);
  return { documents, problems: comparePrices(checkedUrl, stated, liveOffers) };
}

async function readDocument(kind: DiscoveryKind, url: string, dispatcher: Dispatcher): Promise<{ document: DiscoveryDocument; stated: StatedOffer[] }> {
  let json: unknown;
  try {
    json = await fetchJson(url, { dispatcher, timeoutMs: DISCOVERY_TIMEOUT_MS, maxBytes: MAX_DISCOVERY_BYTES });
  } catch (error) {
    const detail = error instanceof DirectoryError ? error.message : 'unreadable';
    const found = error instanceof DirectoryError && /^(not JSON|document over)/.test(error.message);
    return { document: { url, found, valid: found ? false : null, detail, offers: [] }, stated: [] };
  }
  const reading = READERS[kind](json, url);
  if (!reading.valid) return { document: { url, found: true, valid: false, detail: reading.detail, offers: [] }, stated: [] };
  const offers = reading.offers.map(({ offer, url: offerUrl }) => ({ ...offer, url: offerUrl }));
  return { document: { url, found: true, valid: true, detail: null, offers }, stated: reading.offers };
}

const READERS: Readonly<Record<DiscoveryKind, (json: unknown, url: string) => Reading>> = {
  x402_well_known: readWellKnownX402,
  openapi: readOpenApi,
  acp: (json) => (isRecord(json) && isRecord(json.protocol) && json.protocol.name === 'acp'
    ? { valid: true, offers: [] }
    : { valid: false, detail: 'not an ACP discovery document: protocol.name is not "acp"' }),
};

/** A manifest's `resources` (URLs or entries) or a generated `items` list; entries with `accepts` state prices. */
function readWellKnownX402(json: unknown, url: string): Reading {
  if (!isRecord(json)) return { valid: false, detail: 'not a JSON object' };
  const entries = Array.isArray(json.resources) ? json.resources : Array.isArray(json.items) ? json.items : null;
  if (entries === null) return { valid: false, detail: 'neither resources nor items is a list' };
  const key = Array.isArray(json.resources) ? 'resources' : 'items';
  const offers = entries.flatMap((entry, index) => {
    if (!isRecord(entry)) return [];
    const resource = readText(entry.resource) ?? readText(entry.url);
    return toX402Offers(entry, 'x402_well_known').map((offer) => ({ offer, url: toAbsolute(resource, url), where: `${key}[${index}].accepts` }));
  });
  return { valid: true, offers };
}

/** An OpenAPI document's operations with `x-payment-info`, in any of the forms discovery.md 4.2 names. */
function readOpenApi(json: unknown, url: string): Reading {
  if (!isRecord(json) || typeof json.openapi !== 'string' || !isRecord(json.paths)) {
    return { valid: false, detail: 'not an OpenAPI document (openapi and paths)' };
  }
  const server = Array.isArray(json.servers) && isRecord(json.servers[0]) ? readText(json.servers[0].url) : null;
  const base = toAbsolute(server, url) ?? new URL(url).origin;
  const offers: StatedOffer[] = [];
  for (const [path, item] of Object.entries(json.paths)) {
    if (!isRecord(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isRecord(operation) || !isRecord(operation['x-payment-info'])) continue;
      const where = `paths.${path}.${method}.x-payment-info`;
      const operationUrl = `${base.replace(/\/$/, '')}${path}`;
      offers.push(...toPaymentInfoOffers(operation['x-payment-info']).map((offer) => ({ offer, url: operationUrl, where })));
    }
  }
  return offers.length === 0 ? { valid: false, detail: 'no operation has x-payment-info' } : { valid: true, offers };
}

/** The offers of one `x-payment-info`: `{offers: [...]}`, one offer, or `{protocols, price}` (a price in dollars). */
function toPaymentInfoOffers(info: Record<string, unknown>): Offer[] {
  const forms = Array.isArray(info.offers) ? info.offers.filter(isRecord) : [info];
  return forms.flatMap((form): Offer[] => {
    if (isRecord(form.price)) return [toDollarOffer(form)];
    if (form.amount === undefined) return [];
    return [toMppOffer({ method: readText(form.method), intent: readText(form.intent), request: form }, 'openapi')];
  });
}

/** The MPPScan form: `price {amount, currency}` in dollars, its rail the first of `protocols`. */
function toDollarOffer(form: Record<string, unknown>): Offer {
  const price = form.price as Record<string, unknown>;
  const amount = readText(typeof price.amount === 'number' ? String(price.amount) : price.amount);
  const currency = readText(price.currency) ?? 'USD';
  const protocol = Array.isArray(form.protocols) && isRecord(form.protocols[0]) ? Object.keys(form.protocols[0])[0] : undefined;
  const usd = amount !== null && /^\d+(\.\d+)?$/.test(amount) && /^usd/i.test(currency) ? Number(amount) : null;
  const upto = readText(price.mode) === 'upto';
  const rail = protocol === 'mpp' ? 'mpp' : 'x402';
  return {
    rail, scheme: rail === 'mpp' ? 'charge' : upto ? 'upto' : 'exact', method: null, network: null, chain: null,
    asset: { symbol: currency.toUpperCase(), address: null }, amount: { atomic: null, decimal: amount },
    usd, unit: 'call', is_maximum: upto, pay_to: null, facilitator: null, seen_in: 'openapi',
  };
}

function toAbsolute(value: string | null, documentUrl: string): string | null {
  if (value === null || !URL.canParse(value, documentUrl)) return null;
  return new URL(value, documentUrl).href;
}

const toKey = (url: string) => {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname.replace(/\/$/, '')}`;
};

/**
 * A `listed_price_mismatch` for each document stating a USD price for the checked URL that none of the live offers
 * asks; nothing when the challenge states no USD price to compare with.
 */
function comparePrices(checkedUrl: string, stated: StatedOffer[], liveOffers: Offer[]): Problem[] {
  const asked = new Set(liveOffers.flatMap((offer) => (offer.usd === null ? [] : [offer.usd])));
  if (asked.size === 0) return [];
  const key = toKey(checkedUrl);
  return stated.flatMap(({ offer, url, where }) => {
    if (url === null || toKey(url) !== key || offer.usd === null || asked.has(offer.usd)) return [];
    const document = offer.seen_in === 'openapi' ? PATHS.openapi : PATHS.x402_well_known;
    const message = `${document} lists $${offer.usd} for this URL; the live challenge asks $${[...asked].join(' or $')}.`;
    return [toProblem('listed_price_mismatch', `discovery ${document}, ${where}`, message)];
  });
}
