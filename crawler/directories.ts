/**
 * The directories a crawl reads: which kinds exist, the public ones read by default, and how a whole directory
 * is read (Bazaar pages followed to the end; the others one document each).
 */
import type { Dispatcher } from 'undici';
import type { ParseDirectory, ParseResult, SourceKind } from './discovered.ts';
import { DirectoryError, fetchJson } from './fetch-json.ts';
import { parse as parseAcp } from './sources/acp.ts';
import { parse as parseBazaar } from './sources/bazaar.ts';
import { parse as parseCatalog } from './sources/catalog.ts';
import { parse as parseMpp } from './sources/mpp.ts';
import { parse as parseOpen402 } from './sources/open402.ts';
import { isRecord } from './sources/read.ts';

export interface DirectoryConfig {
  kind: SourceKind;
  url: string;
}

/** The kinds a directory URL may be given as (`--source KIND=URL`), with the parser for each. */
export const DIRECTORY_PARSERS: Partial<Record<SourceKind, ParseDirectory>> = {
  bazaar: parseBazaar,
  'mpp.dev': parseMpp,
  open402: parseOpen402,
  acp: parseAcp,
  catalog: parseCatalog,
};

const KIND_ALIASES: Record<string, SourceKind> = {
  mpp: 'mpp.dev',
  ...Object.fromEntries(Object.keys(DIRECTORY_PARSERS).map((kind) => [kind, kind as SourceKind])),
};

/**
 * The real public directories (protocols.md 4b, 4c and 5): facilitators that list resources, mpp.dev, and the Open 402
 * registry as its repository publishes it (rebuilt nightly; the seed holds one pinned copy).
 */
export const DEFAULT_DIRECTORIES: DirectoryConfig[] = [
  { kind: 'bazaar', url: 'https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources' },
  { kind: 'bazaar', url: 'https://facilitator.payai.network/discovery/resources' },
  { kind: 'bazaar', url: 'https://facilitator.goplausible.xyz/discovery/resources' },
  { kind: 'bazaar', url: 'https://api.hydraprotocol.org/discovery/resources' },
  { kind: 'bazaar', url: 'https://gateway.kobaru.io/discovery/resources' },
  { kind: 'bazaar', url: 'https://pay.openfacilitator.io/discovery/resources' },
  { kind: 'bazaar', url: 'https://facilitator.x402.fi/discovery/resources' },
  { kind: 'bazaar', url: 'https://x402.solpay.cash/discovery/resources' },
  { kind: 'mpp.dev', url: 'https://mpp.dev/api/services' },
  { kind: 'open402', url: 'https://raw.githubusercontent.com/ArcedeDev/open-402/main/registry/snapshot.json' },
];

/** Bazaar pages are requested this large; a directory may snap it (CDP rounds to tens). */
export const BAZAAR_PAGE_LIMIT = 100;
/** A runaway directory stops being paged here. */
export const MAX_DIRECTORY_PAGES = 500;

/**
 * Reads `KIND=URL` (as given to `--source`); throws on an unknown kind or a URL that is not http(s).
 * @example toDirectoryConfig('mpp=http://127.0.0.1:8080/api/services') // { kind: 'mpp.dev', url: ... }
 */
export function toDirectoryConfig(value: string): DirectoryConfig {
  const at = value.indexOf('=');
  const kind = KIND_ALIASES[value.slice(0, at).trim().toLowerCase()];
  const url = value.slice(at + 1).trim();
  if (at < 1 || !kind) throw new Error(`--source wants KIND=URL with KIND one of ${Object.keys(KIND_ALIASES).join(', ')}; got "${value}"`);
  if (!/^https?:\/\//i.test(url)) throw new Error(`--source ${kind}: "${url}" is not an http(s) URL`);
  return { kind, url };
}

export interface DirectoryRead extends ParseResult {
  pages: number;
  /** Why a later page could not be read: the pages before it are kept, but the directory was not read in full. */
  incomplete: string | null;
}

/**
 * Reads one whole directory: every page of a Bazaar list (until `offset >= total`, an empty page, or a page that
 * repeats the previous one because the directory ignores `offset`), or the one document of the other kinds.
 * Throws a `DirectoryError` when the first page fails, or when nothing in the directory could be read although it
 * held something (a shape the reader does not know: counted as read, it would replace the kind's listings with
 * none); a later page failing ends the read with what came before.
 */
export async function readDirectory(config: DirectoryConfig, options: { dispatcher?: Dispatcher; timeoutMs?: number } = {}): Promise<DirectoryRead> {
  const read = await readWhole(config, options);
  if (read.endpoints.length === 0 && read.skipped > 0) {
    throw new DirectoryError(config.url, `nothing could be read (${read.skipped} skipped): not the shape of a ${config.kind} directory`);
  }
  return read;
}

async function readWhole(config: DirectoryConfig, options: { dispatcher?: Dispatcher; timeoutMs?: number }): Promise<DirectoryRead> {
  const parse = DIRECTORY_PARSERS[config.kind];
  if (!parse) throw new Error(`no reader for directory kind ${config.kind}`);
  if (config.kind !== 'bazaar') {
    return { ...parse(await fetchJson(config.url, options), config.url), pages: 1, incomplete: null };
  }
  const result: DirectoryRead = { endpoints: [], skipped: 0, pages: 0, incomplete: null };
  const seen = new Set<string>();
  let offset = 0;
  let previousFirst: unknown;
  while (result.pages < MAX_DIRECTORY_PAGES) {
    const pageUrl = withPaging(config.url, offset);
    let page: unknown;
    try {
      page = await fetchJson(pageUrl, options);
    } catch (error) {
      if (result.pages === 0) throw error;
      result.incomplete = `the page at offset ${offset} ${(error as Error).message}`;
      break;
    }
    const parsed = parse(page, config.url);
    result.pages += 1;
    result.skipped += parsed.skipped;
    const fresh = parsed.endpoints.filter((e) => !seen.has(`${e.method} ${e.url}`));
    for (const e of fresh) seen.add(`${e.method} ${e.url}`);
    result.endpoints.push(...fresh);
    const items: unknown[] = isRecord(page) && Array.isArray(page.items) ? page.items : [];
    const total = isRecord(page) && isRecord(page.pagination) ? Number(page.pagination.total) : NaN;
    const first = JSON.stringify(items[0]);
    offset += items.length;
    if (items.length === 0 || first === previousFirst || (Number.isFinite(total) && offset >= total)) break;
    previousFirst = first;
  }
  return result;
}

function withPaging(url: string, offset: number): string {
  const paged = new URL(url);
  if (!paged.searchParams.has('type')) paged.searchParams.set('type', 'http');
  paged.searchParams.set('limit', String(BAZAAR_PAGE_LIMIT));
  paged.searchParams.set('offset', String(offset));
  return paged.href;
}
