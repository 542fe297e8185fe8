import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { Readable } from 'node:stream';
import type { H3Event } from 'h3';
import type { Purchase } from './purchase/schemas.ts';
import { ASSET_CACHE, ASSET_DIR, FILE_TYPES as TYPES, PAGE_CACHE, toContentType } from './release-headers.ts';
import { fastResponse, matchesEtag } from './http.ts';

/**
 * Serving the built site (`dist/`, see site/build/) from the h3 server, after the API routes: files with their
 * type and caching headers, `/services/{id}` from `services/{id}/index.html`, the home page for a query and a
 * purchase's approval page rendered on request (so both work without JavaScript), and for anything else the site's 404 page as
 * HTML with status 404 to a browser (which asks for `text/html`); to any other client nothing, for the app to answer
 * in the API's Error shape. Paths under `/api/` never reach it.
 */

export interface StaticSiteOptions {
  /** The folder (or symlink to the release) to serve. */
  distDir: string;
  /** The home page for a query (`/?rail=x402`), or null for the static first page. */
  renderHome?: (params: URLSearchParams) => Promise<string | null>;
  /** The owner's approval page of a purchase, or null when no site is compiled to render it. */
  renderPurchase?: (purchase: Purchase) => Promise<string | null>;
}

/** A purchase by id as the approval page shows it, or null when there is none (given by the app, which holds the data). */
export type FindPurchase = (id: string, event: H3Event) => Promise<Purchase | null>;

const NOT_FOUND_CACHE = 'public, max-age=60';
/** `/purchase/{purchase_id}`, the owner's approval page, rendered with the purchase on request. */
const PURCHASE_PATH = /^\/purchase\/([A-Za-z0-9_-]{1,64})\/?$/;
/** Bigger files are streamed rather than read whole. */
const STREAM_FROM_BYTES = 256 * 1024;
/**
 * Pages render directory data, so they allow no inline script and no other origin; the purchase approval page
 * (its own helper's) talks to a wallet and is left to set its own policy.
 */
const PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

interface Found {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * The handler for every non-API GET and HEAD: answers a file, a rendered home page, the 404 page to a browser, or
 * null for a client that is not one (the app answers it in the Error shape).
 * @example const answer = await createSiteHandler({ distDir: 'dist' })(event);
 */
export function createSiteHandler(options: StaticSiteOptions, findPurchase?: FindPurchase): (event: H3Event) => Promise<Response | null> {
  return async (event) => {
    const url = event.url;
    const head = event.req.method === 'HEAD';
    const root = await realpath(options.distDir).catch(() => null);
    if (!root) return siteMissing(head);

    if (url.pathname === '/' && url.search && options.renderHome) {
      const html = await options.renderHome(url.searchParams);
      if (html !== null) return respond(html, 200, { 'content-type': TYPES['.html']!, 'cache-control': PAGE_CACHE, ...pageHeaders('/') }, head);
    }
    const purchaseId = PURCHASE_PATH.exec(url.pathname)?.[1];
    if (purchaseId && options.renderPurchase && findPurchase) {
      const purchase = await findPurchase(purchaseId, event);
      if (!purchase) return asksForPage(event) ? notFound(root, head) : null;
      const html = await options.renderPurchase(purchase);
      // It changes with the purchase's status and is for its owner alone: never cached.
      if (html !== null) return respond(html, 200, { 'content-type': TYPES['.html']!, 'cache-control': 'no-store', ...pageHeaders(url.pathname) }, head);
    }

    const found = await findFile(root, url.pathname);
    if (!found) {
      // Service ids are lower-case; a link with capitals still reaches the page.
      const lower = `/${url.pathname.toLowerCase().split('/').filter((segment) => segment.length > 0).join('/')}`;
      if (/[A-Z]/.test(url.pathname) && (await findFile(root, lower))) {
        return fastResponse(null, 301, { location: `${lower}${url.search}`, 'cache-control': PAGE_CACHE });
      }
      return asksForPage(event) ? notFound(root, head) : null;
    }
    const etag = `W/"${found.size.toString(36)}-${Math.floor(found.mtimeMs).toString(36)}"`;
    const type = toContentType(found.path);
    const headers: Record<string, string> = {
      'content-type': type,
      'cache-control': found.path.startsWith(join(root, ASSET_DIR) + sep) ? ASSET_CACHE : PAGE_CACHE,
      etag,
      'last-modified': new Date(found.mtimeMs).toUTCString(),
      'x-content-type-options': 'nosniff',
      ...(type.startsWith('text/html') ? pageHeaders(url.pathname) : {}),
    };
    if (matchesEtag(event.req.headers.get('if-none-match'), etag)) return fastResponse(null, 304, headers);
    headers['content-length'] = String(found.size);
    if (head) return fastResponse(null, 200, headers);
    if (found.size >= STREAM_FROM_BYTES) {
      return fastResponse(Readable.toWeb(createReadStream(found.path)) as ReadableStream, 200, headers);
    }
    return fastResponse(await readFile(found.path), 200, headers);
  };
}

/**
 * The file a URL path names inside the site, or null: `/x` is `x`, `x/index.html` or `x.html`; dot segments,
 * encoded slashes and anything resolving outside the root are refused. `/submissions/{id}` is the submission page.
 */
async function findFile(root: string, pathname: string): Promise<Found | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((segment) => segment.length > 0);
  if (segments.some((segment) => segment.startsWith('.'))) return null;
  const base = join(root, ...segments);
  const candidates = [base, join(base, 'index.html'), `${base}.html`];
  // A page whose script reads the id from the address: one static page answers every id.
  if (segments[0] === 'submissions' && segments.length === 2) {
    candidates.push(join(root, segments[0], 'index.html'), join(root, `${segments[0]}.html`));
  }
  for (const candidate of candidates) {
    const found = await statFile(root, candidate);
    if (found) return found;
  }
  return null;
}

async function statFile(root: string, path: string): Promise<Found | null> {
  try {
    const real = await realpath(path);
    if (!real.startsWith(root + sep)) return null;
    const info = await stat(real);
    return info.isFile() ? { path: real, size: info.size, mtimeMs: info.mtimeMs } : null;
  } catch {
    return null;
  }
}

/** A browser asks for `text/html`; agents and curl, which accept any type or JSON, get the API's Error shape instead. */
function asksForPage(event: H3Event): boolean {
  return event.req.headers.get('accept')?.includes('text/html') ?? false;
}

async function notFound(root: string, head: boolean): Promise<Response> {
  const page = await readFile(join(root, '404.html'), 'utf8').catch(() => null);
  const headers = { 'content-type': TYPES['.html']!, 'cache-control': NOT_FOUND_CACHE, ...pageHeaders('/404') };
  return respond(page ?? '<!doctype html><title>Not found</title><h1>Not found</h1><p><a href="/">Home</a></p>', 404, headers, head);
}

function siteMissing(head: boolean): Response {
  return respond('<!doctype html><title>Site not built</title><h1>The site is not built yet</h1><p>Run <code>npm run build</code>. The API answers meanwhile: <a href="/openapi.json">/openapi.json</a>.</p>',
    503, { 'content-type': TYPES['.html']!, 'cache-control': 'no-store', 'retry-after': '30' }, head);
}

function pageHeaders(pathname: string): Record<string, string> {
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'strict-origin-when-cross-origin' };
  if (!pathname.startsWith('/purchase')) headers['content-security-policy'] = PAGE_POLICY;
  return headers;
}

function respond(body: string, status: number, headers: Record<string, string>, head: boolean): Response {
  return fastResponse(head ? null : body, status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
}
