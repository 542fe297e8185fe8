import { readFile } from 'node:fs/promises';
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

/**
 * The links `files` hold, read from where each is on disk (`source`, or its path under `root`), against every path
 * of the release at `root` (its site URL from its build record). Each link is the release's own string for its
 * path, so a release of 100,000 pages holds one copy of each path however many files link it.
 * @example const links = await readLinks(root, uploads, new Map(files.map((f) => [f.path, f])));
 */
export async function readLinks(root: string, files: ReadonlyArray<{ path: string; source?: string }>, all: PathSet & { get(path: string): { path: string } | undefined }): Promise<Map<string, string[]>> {
  const siteUrl = readBuildInfo(root)?.siteUrl ?? null;
  const links = new Map<string, string[]>();
  await forEachConcurrent(files.filter((file) => LINKING.test(file.path)), 32, async (file) => {
    const text = await readFile(file.source ?? join(root, file.path), 'utf8').catch(() => null);
    if (text !== null) links.set(file.path, toLinkedPaths(file.path, text, siteUrl, all).map((target) => all.get(target)!.path));
  });
  return links;
}
