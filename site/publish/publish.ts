import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { toCacheControl, toContentType } from '../../api/release-headers.ts';
import { forEachConcurrent } from '../build/concurrent.ts';
import { byCacheOrder, readDigestCache, writeDigestCache, type SeenFile } from './digest-cache.ts';
import { readLinks } from './links.ts';
import { LEGACY_MANIFEST_PATH, type ManifestEntry } from './manifest.ts';
import { orderDeletions, orderUploads, type PublishFile } from './plan.ts';
import { PublishError, type Store } from './store.ts';

/**
 * Publishing a release to object storage: only what changed (by digest, against the manifest kept in the store),
 * in waves ordered by the links the files hold so that links resolve at every moment (site/publish/plan.ts), with the manifest written between waves,
 * and deletions last. A publish that stops anywhere is completed by the next one.
 */

export interface PublishOptions {
  store: Store;
  /** The release folder (resolved once: a build switching `dist` meanwhile does not mix two releases). */
  root: string;
  /** Files from outside the release: where each is on disk, by its path in the store (`snapshots/index.db.gz`). */
  extra?: Record<string, string>;
  /** Uploads in flight at once. */
  concurrency?: number;
  onStart?: (plan: { uploads: number; bytes: number; unchanged: number; deletions: number }) => void;
  onUpload?: (file: PublishFile) => void;
}

export interface PublishSummary {
  uploaded: number;
  unchanged: number;
  deleted: number;
  /** Bytes uploaded. */
  bytes: number;
  seconds: number;
}

export const DEFAULT_CONCURRENCY = 16;

/**
 * @example const summary = await publishSite({ store, root: realpathSync('dist'), extra: { 'snapshots/index.db.gz': copy } });
 */
export async function publishSite(options: PublishOptions): Promise<PublishSummary> {
  const started = performance.now();
  const { store } = options;
  await store.assertWritable();
  // In manifest order, to be merged with the manifest.
  const files = (await listPublishFiles(options.root, options.extra ?? {})).sort((a, b) => byCacheOrder(a.path, b.path));
  const read = await store.readManifest();
  const state = await compareWithManifest(files, read.entries);
  const uploads = files.filter((file) => file.stored === Stored.Pending);
  const release = toPathIndex(files);
  const links = await readLinks(options.root, uploads, release);
  const waves = orderUploads(uploads, (path) => !!state.previous.get(path)?.digest, links);
  links.clear();
  const deletions = orderDeletions(state.gone.map((entry) => entry.path));
  const bytes = uploads.reduce((sum, file) => sum + file.size, 0);
  options.onStart?.({ uploads: uploads.length, bytes, unchanged: files.length - uploads.length, deletions: deletions.length });

  // Files being uploaded are marked unknown before their wave starts, so a stop mid-wave re-uploads them.
  const write = () => store.writeManifest(() => toManifestEntries(files, state));
  const mark = (wave: readonly SourcedFile[] | undefined) => {
    for (const file of wave ?? []) file.stored = Stored.Uploading;
    return write();
  };
  if (waves.length > 0) await mark(waves[0]);
  else if (read.legacy) await write();
  if (read.legacy) await store.remove([LEGACY_MANIFEST_PATH]);
  for (const [index, wave] of waves.entries()) {
    await forEachConcurrent(wave, options.concurrency ?? DEFAULT_CONCURRENCY, async (file) => {
      if (file.source !== undefined) {
        // A file of the publish's own (the database copy, 500 MB at 100,000 services): unchanged while it runs,
        // so it is sent as a stream, never held whole, under the digest it was listed with.
        await store.put(file.path, { file: file.source, size: file.size }, file);
      } else {
        const body = await readSource(join(options.root, file.path), file.path);
        await store.put(file.path, body, file);
        // What was uploaded, as read at its upload: a page re-rendered since it was listed is recorded as stored.
        const digest = toDigest(body, file);
        if (digest !== file.digest || body.length !== file.size) state.uploadedAs.set(file.path, { path: file.path, digest, size: body.length });
      }
      file.stored = Stored.Done;
      options.onUpload?.(file);
    });
    await mark(waves[index + 1]);
  }
  if (deletions.length > 0) {
    await store.remove(deletions);
    state.gone = [];
    await write();
  }
  return { uploaded: uploads.length, unchanged: files.length - uploads.length, deleted: deletions.length, bytes, seconds: (performance.now() - started) / 1000 };
}

/** What the store holds of a release file, as far as the manifest and this publish know. */
const enum Stored {
  /** The manifest lists it with this digest. */
  Same,
  /** To upload: the manifest lacks it, lists another digest, or an upload not seen to finish. */
  Pending,
  /** In the wave under way. */
  Uploading,
  /** Uploaded by this publish. */
  Done,
}

/** What the manifest said beyond the release listing: the entries of files to upload, and of paths gone from the release. */
interface ManifestState {
  /** The manifest's entry of each file to upload that it lists (an older version, or an upload not seen to finish). */
  previous: Map<string, ManifestEntry>;
  /** Entries whose path left the release, in manifest order: deleted after every upload. */
  gone: ManifestEntry[];
  /** Files uploaded with other bytes than listed (re-rendered meanwhile): what the store now holds. */
  uploadedAs: Map<string, ManifestEntry>;
}

/**
 * Marks each file (in manifest order) Same or Pending against the manifest's entries (in the same order), read as
 * they come: the manifest is never held whole.
 */
async function compareWithManifest(files: SourcedFile[], entries: AsyncIterable<ManifestEntry> | Iterable<ManifestEntry>): Promise<ManifestState> {
  const state: ManifestState = { previous: new Map(), gone: [], uploadedAs: new Map() };
  let k = 0;
  for await (const entry of entries) {
    while (k < files.length && files[k]!.path < entry.path) files[k++]!.stored = Stored.Pending;
    const file = files[k];
    if (file?.path !== entry.path) {
      state.gone.push(entry);
      continue;
    }
    if (entry.digest === file.digest) file.stored = Stored.Same;
    else {
      file.stored = Stored.Pending;
      state.previous.set(file.path, entry);
    }
    k += 1;
  }
  while (k < files.length) files[k++]!.stored = Stored.Pending;
  return state;
}

/** The manifest as the store holds it now: the release's files merged with the paths gone from it, in manifest order. */
function* toManifestEntries(files: readonly SourcedFile[], state: ManifestState): Generator<ManifestEntry> {
  let g = 0;
  for (const file of files) {
    while (g < state.gone.length && state.gone[g]!.path < file.path) yield state.gone[g++]!;
    if (file.stored === Stored.Same) yield file;
    else if (file.stored === Stored.Uploading) yield { path: file.path, digest: null, size: file.size };
    else if (file.stored === Stored.Done) yield state.uploadedAs.get(file.path) ?? file;
    else {
      const previous = state.previous.get(file.path);
      if (previous) yield previous;
    }
  }
  while (g < state.gone.length) yield state.gone[g++]!;
}

/** Release files by path, found by bisection in the listing (in manifest order): a map of 400,000 paths costs some 20 MB. */
function toPathIndex<T extends { path: string }>(files: readonly T[]): { has(path: string): boolean; get(path: string): T | undefined } {
  const get = (path: string) => {
    let low = 0;
    let high = files.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = files[middle]!.path;
      if (at === path) return files[middle];
      if (at < path) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  };
  return { get, has: (path) => get(path) !== undefined };
}

interface SourcedFile extends PublishFile {
  /** The file on disk, when it is not the file at `path` in the release (the extra files). */
  source?: string;
  stored?: Stored;
}


/**
 * Every file of the release (dotfiles and dot folders left out: build records, never served) and the extra
 * files, with the digest each would be stored under. A release file whose size, modification time and headers
 * match the release's digest cache (site/publish/digest-cache.ts, written here) is not read again: a page rendered
 * since is a new file with a new time.
 */
export async function listPublishFiles(root: string, extra: Record<string, string>): Promise<SourcedFile[]> {
  const found = (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => !path.split('/').some((segment) => segment.startsWith('.')))
    .sort(byCacheOrder);
  const seen: Array<SeenFile & SourcedFile> = new Array(found.length);
  await forEachConcurrent(Array.from(found.keys()), 32, async (k) => {
    const path = found[k]!;
    const headers = { contentType: toContentType(path), cacheControl: toCacheControl(path) };
    const stats = await stat(join(root, path)).catch(() => null);
    seen[k] = { path, size: stats?.size ?? 0, mtimeMs: stats?.mtimeMs ?? null, headers: toHeaderText(headers), digest: '', ...headers };
  });
  const unread = await applyDigestCache(root, seen);
  await forEachConcurrent(unread, 32, async (file) => {
    file.digest = toDigest(await readSource(join(root, file.path), file.path), file);
  });
  await writeDigestCache(root, seen);
  const files: SourcedFile[] = seen;
  for (const [path, source] of Object.entries(extra)) {
    const headers = { contentType: toContentType(path), cacheControl: toCacheControl(path) };
    const { size, digest } = await toFileDigest(source, path, headers);
    files.push({ path, size, digest, ...headers, source });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** Gives each file (in cache order) the digest the cache holds for it when it is unchanged; answers the others. */
async function applyDigestCache<T extends SeenFile>(root: string, files: T[]): Promise<T[]> {
  const unread: T[] = [];
  let k = 0;
  for await (const cached of readDigestCache(root)) {
    while (k < files.length && files[k]!.path < cached.path) unread.push(files[k++]!);
    const file = files[k];
    if (file?.path !== cached.path) continue;
    if (file.mtimeMs !== null && file.size === cached.size && file.mtimeMs === cached.mtimeMs && file.headers === cached.headers) file.digest = cached.digest;
    else unread.push(file);
    k += 1;
  }
  while (k < files.length) unread.push(files[k++]!);
  return unread;
}

// Ends with a newline: the digests in stores' manifests were made so, and a changed digest re-uploads every file.
// One string per pair of headers, however many files share it (a release has a handful of pairs and 400,000 files).
const headerTexts = new Map<string, string>();
function toHeaderText(headers: Pick<PublishFile, 'contentType' | 'cacheControl'>): string {
  const text = `${headers.contentType}\n${headers.cacheControl}\n`;
  const known = headerTexts.get(text);
  if (known !== undefined) return known;
  headerTexts.set(text, text);
  return text;
}

/** The digest of a file as stored: its content and the headers it is stored with. */
function toDigest(body: Uint8Array, headers: Pick<PublishFile, 'contentType' | 'cacheControl'>): string {
  return createHash('sha256').update(body).update(`\n${toHeaderText(headers)}`).digest('hex');
}

/** The digest and size of a file read as a stream (the database copy is too large to hold). */
async function toFileDigest(source: string, path: string, headers: Pick<PublishFile, 'contentType' | 'cacheControl'>): Promise<{ size: number; digest: string }> {
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of createReadStream(source)) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
  } catch (error) {
    throw new PublishError(`${path} could not be read (${source})`, { key: path, cause: error });
  }
  return { size, digest: hash.update(`\n${toHeaderText(headers)}`).digest('hex') };
}

async function readSource(source: string, path: string): Promise<Buffer> {
  try {
    return await readFile(source);
  } catch (error) {
    throw new PublishError(`${path} vanished from the release while publishing (a build replaced it?); publish again`, { key: path, cause: error });
  }
}
