import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachConcurrent } from '../build/concurrent.ts';
import { readBuildInfo } from '../build/release.ts';

/**
 * The same-site links a release's files hold, read from the files themselves, so the publish order follows what
 * a page, feed, sitemap or document really links rather than rules about paths. A link is an absolute URL on the
 * site's origin (canonical and feed links, sitemap entries, llms.txt), or in a page a root-relative `href`, `src`
 * or `action`. The pages are the site's own Astro output, which escapes `"` in text and attribute values, so an
 * attribute's value is found by its quotes without an HTML parser (none is a dependency of the project).
 */

/** The kinds of file that can hold a link; others (assets, the database copy) link nothing that matters here. */
const LINKING = /\.(html|xml|json|md|txt)$/;
/** The paths of a release (a set of them, or a map by them). */
type PathSet = { has(path: string): boolean };
const ATTRIBUTE = /\s(?:href|src|action)="(\/(?!\/)[^"]*)"/g;

/**
 * The release path a same-site URL path is served from, or null when the path is not a file of the release.
 * @example toReleasePath('/services/a?x=1') // 'services/a/index.html'
 */
export function toReleasePath(urlPath: string, files: PathSet): string | null {
  let path = urlPath.replace(/[?#].*$/, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    return null;
  }
  path = path.replace(/^\/+/, '');
  const candidates = path === '' || path.endsWith('/') ? [`${path}index.html`] : [path, `${path}/index.html`];
  return candidates.find((candidate) => files.has(candidate)) ?? null;
}

/**
 * The release paths a file's text links (itself left out), each once.
 * @example toLinkedPaths('services/a/feed.xml', atom, 'https://index.test', files) // ['services/a/index.html', 'index.html']
 */
export function toLinkedPaths(path: string, text: string, siteUrl: string | null, files: PathSet): string[] {
  const urlPaths: string[] = [];
  if (siteUrl) {
    const origin = new RegExp(`${siteUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w.:-])(/[^\\s"'\\x60<>&\\\\)\\]]*)?`, 'g');
    // Sentence punctuation after a URL in text (`see https://…/pricing.md.`) is not part of it, nor is an escaped
    // quote or bracket after one quoted in a page (`&quot;`), and a query does not choose the file.
    for (const match of text.matchAll(origin)) urlPaths.push((match[1] ?? '/').replace(/[.,;:!?]+$/, ''));
  }
  if (path.endsWith('.html')) for (const match of text.matchAll(ATTRIBUTE)) urlPaths.push(match[1]!.replace(/&amp;/g, '&'));
  const linked = new Set<string>();
  for (const urlPath of urlPaths) {
    const target = toReleasePath(urlPath, files);
    if (target !== null && target !== path) linked.add(target);
  }
  return [...linked];
}

/** A release as a table of paths (site/publish/release-files.ts): each path's index, or -1. */
export interface IndexedRelease extends PathSet {
  readonly paths: readonly string[];
  readonly sources: ReadonlyMap<number, string>;
  indexOf(path: string): number;
}

/**
 * The links the files at `indexes` hold, read from where each is on disk (its source, or its path under `root`),
 * against every path of the release at `root` (its site URL from its build record), each told to `onLink` as the
 * indexes of the file and of the file it links: nothing per file or per link is kept here.
 * @example await readLinks(root, uploads, files, (from, to) => needs.add(from, to));
 */
export async function readLinks(root: string, indexes: ArrayLike<number>, release: IndexedRelease, onLink: (from: number, to: number) => void): Promise<void> {
  const siteUrl = readBuildInfo(root)?.siteUrl ?? null;
  const linking = Array.prototype.filter.call(indexes, (k: number) => LINKING.test(release.paths[k]!)) as number[];
  await forEachConcurrent(linking, 32, async (k) => {
    const path = release.paths[k]!;
    const linked = await readLinkedPaths(release.sources.get(k) ?? join(root, path), path, siteUrl, release).catch(() => null);
    for (const target of linked ?? []) onLink(k, release.indexOf(target));
  });
}

/** Files up to this size are read whole; a larger one (the services snapshot: 70 MB at 100,000 services) in pieces. */
const WHOLE_FILE_BYTES = 1 << 20;
/**
 * Where a piece may end in a file that is not a page: no link holds one of these. In a page, only at whitespace,
 * which a link attribute's value (URL-encoded) does not hold.
 */
const PIECE_END = /[\s"'<>][^\s"'<>]*$/;
const PAGE_PIECE_END = /\s\S*$/;

/** The release paths the file at `source` links, read whole or in pieces cut where no link can be. */
async function readLinkedPaths(source: string, path: string, siteUrl: string | null, files: PathSet): Promise<Iterable<string>> {
  const { size } = await stat(source);
  if (size <= WHOLE_FILE_BYTES) return toLinkedPaths(path, await readFile(source, 'utf8'), siteUrl, files);
  const linked = new Set<string>();
  const end = path.endsWith('.html') ? PAGE_PIECE_END : PIECE_END;
  let carried = '';
  for await (const chunk of createReadStream(source, { encoding: 'utf8', highWaterMark: WHOLE_FILE_BYTES })) {
    const text = carried + (chunk as string);
    const cut = end.exec(text)?.index ?? text.length;
    for (const target of toLinkedPaths(path, text.slice(0, cut), siteUrl, files)) linked.add(target);
    carried = text.slice(cut);
  }
  for (const target of toLinkedPaths(path, carried, siteUrl, files)) linked.add(target);
  return linked;
}
