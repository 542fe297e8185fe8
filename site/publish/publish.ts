import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { toCacheControl, toContentType } from '../../api/release-headers.ts';
import { forEachConcurrent } from '../build/concurrent.ts';
import { byCacheOrder, readDigestCache, writeDigestCache, type SeenFile } from './digest-cache.ts';
import { readLinks } from './links.ts';
import { listChangedFiles, toPublishPlan, type Manifest, type PublishFile } from './plan.ts';
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
  // The manifest first: its text and the object parsed from it are held at once only while nothing else is.
  const manifest = await store.readManifest();
  const files = await listPublishFiles(options.root, options.extra ?? {});
  const byPath = new Map(files.map((file) => [file.path, file]));
  const links = await readLinks(options.root, listChangedFiles(files, manifest), byPath);
  const plan = toPublishPlan(files, manifest, links);
  links.clear();
  const uploads = plan.waves.flat();
  const bytes = uploads.reduce((sum, file) => sum + file.size, 0);
  options.onStart?.({ uploads: uploads.length, bytes, unchanged: plan.unchanged, deletions: plan.deletions.length });

  // Entries being uploaded are marked unknown before their wave starts, so a stop mid-wave re-uploads them. The
  // manifest read is updated in place: the plan is made, and a copy of 400,000 entries is memory the publish lacks.
  // An entry whose file is stored as listed is the file's own record, whose digest string the listing holds anyway.
  const entries: Manifest['files'] = manifest.files;
  for (const file of files) if (entries[file.path]?.digest === file.digest) entries[file.path] = file;
  const mark = (wave: readonly PublishFile[] | undefined, done: ReadonlyArray<readonly [string, Manifest['files'][string]]>) => {
    for (const [path, entry] of done) entries[path] = entry;
    for (const file of wave ?? []) entries[file.path] = { digest: null, size: file.size };
    return store.writeManifest({ version: 1, files: entries });
  };
  if (plan.waves.length > 0) await mark(plan.waves[0], []);
  for (const [index, wave] of plan.waves.entries()) {
    // What this wave uploaded, as read at its upload: a page re-rendered since it was listed is recorded as stored.
    const done: Array<readonly [string, Manifest['files'][string]]> = [];
    await forEachConcurrent(wave, options.concurrency ?? DEFAULT_CONCURRENCY, async (file) => {
      const { source } = byPath.get(file.path)!;
      if (source !== undefined) {
        // A file of the publish's own (the database copy, 500 MB at 100,000 services): unchanged while it runs,
        // so it is sent as a stream, never held whole, under the digest it was listed with.
        await store.put(file.path, { file: source, size: file.size }, file);
        done.push([file.path, file]);
      } else {
        const body = await readSource(join(options.root, file.path), file.path);
        await store.put(file.path, body, file);
        const digest = toDigest(body, file);
        done.push([file.path, digest === file.digest && body.length === file.size ? file : { digest, size: body.length }]);
      }
      options.onUpload?.(file);
    });
    await mark(plan.waves[index + 1], done);
  }
  if (plan.deletions.length > 0) {
    await store.remove(plan.deletions);
    for (const path of plan.deletions) delete entries[path];
    await store.writeManifest({ version: 1, files: entries });
  }
  return { uploaded: uploads.length, unchanged: plan.unchanged, deleted: plan.deletions.length, bytes, seconds: (performance.now() - started) / 1000 };
}

interface SourcedFile extends PublishFile {
  /** The file on disk, when it is not the file at `path` in the release (the extra files). */
  source?: string;
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
