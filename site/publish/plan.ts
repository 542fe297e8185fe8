import { ASSET_DIR } from '../build/headers.ts';

/**
 * What a publish does, decided before it touches the store: which files to upload, in which order, and which
 * objects to delete afterwards. Pure, so its rules are tested with tables.
 *
 * The order keeps every published page readable and every same-site link resolvable whenever a publish stops:
 * a file is uploaded only after everything it links to (assets and snapshots, then endpoint pages, then listing
 * pages, then the pages and documents that link listing pages), and nothing is deleted until every upload is done.
 */

/** One file of a release as it would be stored: its digest covers the content and the headers it is stored with. */
export interface PublishFile {
  /** Path inside the release, `/`-separated (`services/a/index.html`). */
  path: string;
  size: number;
  /** sha256 of the content, the Content-Type and the Cache-Control. */
  digest: string;
  contentType: string;
  cacheControl: string;
}

/**
 * What is published under a prefix, kept in the store beside it. An entry whose digest is null may hold anything
 * (an upload of it was started and not seen to finish), so the next publish uploads it again.
 */
export interface Manifest {
  version: 1;
  files: Record<string, { digest: string | null; size: number }>;
}

export interface PublishPlan {
  /** Uploads in waves: a wave starts when the one before it is complete. */
  waves: PublishFile[][];
  unchanged: number;
  /** Paths published before and gone from the release, deleted after every upload (pages before what they link). */
  deletions: string[];
}

/** The manifest's own key under the prefix; dotfiles are never part of a release. */
export const MANIFEST_PATH = '.publish/manifest.json';

export const EMPTY_MANIFEST: Manifest = { version: 1, files: {} };

/**
 * How many waves stand before a file's: 0 for what links no page (assets, the JSON snapshots, the database
 * copy for replicas), 1 for endpoint pages, 2 for listing pages, 3 for everything that links those.
 * @example toWave('services/a/index.html') // 2
 */
export function toWave(path: string): number {
  if (path.startsWith(`${ASSET_DIR}/`) || path.startsWith('snapshots/')) return 0;
  if (/^services\/[^/]+\/endpoints\//.test(path)) return 1;
  if (/^services\/[^/]+\/index\.html$/.test(path)) return 2;
  if (!path.includes('/') && !/\.(html|md|txt|xml)$/.test(path)) return 0;
  return 3;
}

/**
 * The plan that makes the store hold `files` when it holds what `manifest` says.
 * @example toPublishPlan(files, EMPTY_MANIFEST).waves.flat().length === files.length
 */
export function toPublishPlan(files: readonly PublishFile[], manifest: Manifest): PublishPlan {
  const waves: PublishFile[][] = [[], [], [], []];
  let unchanged = 0;
  const present = new Set<string>();
  for (const file of files) {
    present.add(file.path);
    if (manifest.files[file.path]?.digest === file.digest) unchanged += 1;
    else waves[toWave(file.path)]!.push(file);
  }
  const deletions = Object.keys(manifest.files)
    .filter((path) => !present.has(path))
    .sort((a, b) => toWave(b) - toWave(a) || a.localeCompare(b));
  return { waves: waves.filter((wave) => wave.length > 0), unchanged, deletions };
}
