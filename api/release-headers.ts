import { extname } from 'node:path';

/**
 * The type and caching of each kind of file of a release, one table for the server (api/static.ts) and the
 * publish to object storage (site/publish/), so a CDN serves every file as the index itself does.
 */

export const FILE_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  // The database copy for replicas (snapshots/index.db.gz): a gzip file, stored and served as one.
  '.gz': 'application/gzip',
};
/** Pages and snapshots change with the data: the same freshness as API reads. */
export const PAGE_CACHE = 'public, max-age=60, s-maxage=300';
/** Build assets carry a content hash in their name, so a name never changes content. */
export const ASSET_CACHE = 'public, max-age=31536000, immutable';
/** Where the build puts its fingerprinted assets (Astro's `_astro/`). */
export const ASSET_DIR = '_astro';

/**
 * The Content-Type of a file by its name.
 * @example toContentType('services/a/index.html') // 'text/html; charset=utf-8'
 */
export function toContentType(path: string): string {
  return FILE_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The Cache-Control of a file by its path inside the release (`/`-separated): long and immutable for fingerprinted
 * assets, short for everything else.
 * @example toCacheControl('_astro/site.3f2a.css') // 'public, max-age=31536000, immutable'
 */
export function toCacheControl(path: string): string {
  return path.startsWith(`${ASSET_DIR}/`) ? ASSET_CACHE : PAGE_CACHE;
}
