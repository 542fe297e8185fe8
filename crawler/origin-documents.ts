/**
 * Each listed host's own discovery documents (`/openapi.json`, `/.well-known/x402`: crawler/sources/wellknown.ts),
 * read at most daily per host, through the SSRF guard, 10 s and 256 KiB each, a few hosts at a time and at most
 * ORIGIN_READS_PER_CRAWL a crawl. What they list joins the host's endpoints (source `wellknown`): an endpoint the
 * directories list too gains what the document says and they do not (input, output, docs, its offers); one only the
 * documents listed goes away when they stop listing it.
 */
import PQueue from 'p-queue';
import type { DB } from '../data/db.ts';
import { listDueOrigins, recordOriginCheck } from '../data/origin-checks.ts';
import { getServiceInput, upsertServices } from '../data/services.ts';
import type { EndpointInput, ServiceInput } from '../data/types.ts';
import { toServices } from './dedupe.ts';
import type { DiscoveredEndpoint } from './discovered.ts';
import { fetchJson } from './fetch-json.ts';
import type { ProbeAgent } from './probe.ts';
import { parseOpenApi, parseWellKnown } from './sources/wellknown.ts';
import { assertPublicUrl } from '../net/guard.ts';

export const ORIGIN_READ_TIMEOUT_MS = 10_000;
export const MAX_ORIGIN_DOCUMENT_BYTES = 256 * 1024;
export const ORIGIN_READS_PER_CRAWL = 200;
const CONCURRENT_HOSTS = 8;
const DAY_MS = 86_400_000;

const DOCUMENTS: ReadonlyArray<[string, (json: unknown, origin: string) => DiscoveredEndpoint[]]> = [
  ['/openapi.json', parseOpenApi],
  ['/.well-known/x402', parseWellKnown],
];

/** What one host's documents list; a document missing, refused or malformed lists nothing. */
async function readOrigin(origin: string, agent: ProbeAgent): Promise<DiscoveredEndpoint[]> {
  const found: DiscoveredEndpoint[] = [];
  for (const [path, parse] of DOCUMENTS) {
    try {
      const url = await assertPublicUrl(`${origin}${path}`, { allow: agent.allow, resolve: false });
      found.push(...parse(await fetchJson(url.href, { dispatcher: agent.dispatcher, timeoutMs: ORIGIN_READ_TIMEOUT_MS, maxBytes: MAX_ORIGIN_DOCUMENT_BYTES }), origin));
    } catch {
      // No document, or none the guard lets the index read: the host is listed as its directories say.
    }
  }
  return found;
}

const keyOf = (e: EndpointInput) => `${e.method ?? ''} ${e.url}`;
const isOriginOnly = (e: EndpointInput) => e.sources?.length === 1 && e.sources[0] === 'wellknown';

/**
 * The stored service with what its host's documents list now (rules in the module comment).
 * @example withOriginListings(getServiceInput(db, id)!, toServices(found)[0])
 */
export function withOriginListings(stored: ServiceInput, found: ServiceInput | undefined): ServiceInput {
  const listed = new Map((found?.endpoints ?? []).map((e) => [keyOf(e), e]));
  const endpoints = stored.endpoints.filter((e) => listed.has(keyOf(e)) || !isOriginOnly(e)).map((e): EndpointInput => {
    const doc = listed.get(keyOf(e));
    if (doc === undefined) return e;
    listed.delete(keyOf(e));
    return {
      ...e,
      sources: [...new Set([...(e.sources ?? []), 'wellknown'])].sort(),
      offers: [...(e.offers ?? []).filter((offer) => offer.seen_in !== 'wellknown'), ...(doc.offers ?? [])],
      input: e.input ?? doc.input ?? null, output: e.output ?? doc.output ?? null, docs_url: e.docs_url ?? doc.docs_url ?? null,
      route_template: e.route_template ?? doc.route_template ?? null, description: e.description ?? doc.description,
    };
  });
  const sources = [...stored.sources.filter((ref) => ref.source !== 'wellknown'), ...(found?.sources ?? [])];
  const all = [...endpoints, ...listed.values()];
  return { ...stored, endpoints: all, sources, rails: [...new Set([...stored.rails, ...all.flatMap((e) => e.rails)])].sort() };
}

/**
 * Reads the documents of the hosts due (at most `limit`), and writes what they list with each host's endpoints.
 * @example await readOriginDocuments(db, { agent, now: () => new Date() })
 */
export async function readOriginDocuments(db: DB, options: { agent: ProbeAgent; now: () => Date; limit?: number }): Promise<{ read: number; found: number }> {
  const due = listDueOrigins(db, {
    before: new Date(options.now().getTime() - DAY_MS).toISOString(), limit: options.limit ?? ORIGIN_READS_PER_CRAWL,
  });
  const queue = new PQueue({ concurrency: CONCURRENT_HOSTS });
  let found = 0;
  await Promise.all(due.map((service) => queue.add(async () => {
    const origin = new URL(service.endpoint).origin;
    const listed = (await readOrigin(origin, options.agent)).filter((e) => new URL(e.url).host === new URL(service.endpoint).host);
    const at = options.now().toISOString();
    const stored = getServiceInput(db, service.id);
    const hadOriginListings = stored?.sources.some((ref) => ref.source === 'wellknown') ?? false;
    if (stored && (listed.length > 0 || hadOriginListings)) upsertServices(db, [withOriginListings(stored, toServices(listed)[0])], at);
    recordOriginCheck(db, service.id, at, listed.length);
    found += listed.length;
  })));
  return { read: due.length, found };
}
