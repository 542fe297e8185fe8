import { createHash } from 'node:crypto';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { toCacheControl, toContentType } from '../../api/release-headers.ts';
import { forEachConcurrent } from '../build/concurrent.ts';
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
  const files = await listPublishFiles(options.root, options.extra ?? {});
  const byPath = new Map(files.map((file) => [file.path, file]));
  const manifest = await store.readManifest();
  const links = await readLinks(options.root, listChangedFiles(files, manifest), byPath);
  const plan = toPublishPlan(files, manifest, links);
  links.clear();
  const uploads = plan.waves.flat();
  const bytes = uploads.reduce((sum, file) => sum + file.size, 0);
  options.onStart?.({ uploads: uploads.length, bytes, unchanged: plan.unchanged, deletions: plan.deletions.length });

  // Entries being uploaded are marked unknown before their wave starts, so a stop mid-wave re-uploads them. The
  // manifest read is updated in place: the plan is made, and a copy of 400,000 entries is memory the publish lacks.
  const entries: Manifest['files'] = manifest.files;
  // What was uploaded, as read at its upload: a page re-rendered since it was listed is recorded as stored.
  const stored = new Map<string, { digest: string; size: number }>();
  const mark = (wave: readonly PublishFile[] | undefined, done: readonly PublishFile[]) => {
    for (const file of done) entries[file.path] = stored.get(file.path)!;
    for (const file of wave ?? []) entries[file.path] = { digest: null, size: file.size };
    return store.writeManifest({ version: 1, files: entries });
  };
  if (plan.waves.length > 0) await mark(plan.waves[0], []);
  for (const [index, wave] of plan.waves.entries()) {
    await forEachConcurrent(wave, options.concurrency ?? DEFAULT_CONCURRENCY, async (file) => {
      const body = await readSource(toSource(options.root, byPath.get(file.path)!), file.path);
      await store.put(file.path, body, file);
      stored.set(file.path, { digest: toDigest(body, file), size: body.length });
      options.onUpload?.(file);
    });
    await mark(plan.waves[index + 1], wave);
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

const toSource = (root: string, file: SourcedFile) => file.source ?? join(root, file.path);

/**
 * Every file of the release (dotfiles and dot folders left out: build records, never served) and the extra
 * files, with the digest each would be stored under. A release file whose size and modification time match the
 * release's digest cache (`.publish-digests.json`, written here) is not read again: a page rendered since is a new
 * file with a new time.
 */
export async function listPublishFiles(root: string, extra: Record<string, string>): Promise<SourcedFile[]> {
  const found = (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => !path.split('/').some((segment) => segment.startsWith('.')));
  const cached = await readDigestCache(root);
  const fresh: DigestCache = {};
  const files: SourcedFile[] = [];
  await forEachConcurrent(found, 32, async (path) => {
    const source = join(root, path);
    const headers = { contentType: toContentType(path), cacheControl: toCacheControl(path) };
    const seen = await stat(source).catch(() => null);
    const known = seen && cached[path];
    // What was read is let go as it is used: two caches of 400,000 entries at once is memory the publish lacks.
    delete cached[path];
    const headerText = toHeaderText(headers);
    const digest = known && known.size === seen.size && known.mtimeMs === seen.mtimeMs && known.headers === headerText
      ? known.digest
      : toDigest(await readSource(source, path), headers);
    if (seen) fresh[path] = { size: seen.size, mtimeMs: seen.mtimeMs, headers: headerText, digest };
    files.push({ path, size: seen?.size ?? 0, digest, ...headers });
  });
  for (const [path, source] of Object.entries(extra)) {
    const body = await readSource(source, path);
    const headers = { contentType: toContentType(path), cacheControl: toCacheControl(path) };
    files.push({ path, size: body.length, digest: toDigest(body, headers), ...headers, source });
  }
  await writeDigestCache(root, fresh);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** Digests of a release's files as last read, by path. */
type DigestCache = Record<string, { size: number; mtimeMs: number; headers: string; digest: string }>;

const DIGEST_CACHE = '.publish-digests.json';

async function readDigestCache(root: string): Promise<DigestCache> {
  try {
    return JSON.parse(await readFile(join(root, DIGEST_CACHE), 'utf8')) as DigestCache;
  } catch {
    return {};
  }
}

/** Written beside its place and renamed over it; a release that cannot take it (read-only) is simply read whole next time. */
async function writeDigestCache(root: string, cache: DigestCache): Promise<void> {
  const path = join(root, DIGEST_CACHE);
  await writeFile(`${path}.tmp-${process.pid}`, JSON.stringify(cache))
    .then(() => rename(`${path}.tmp-${process.pid}`, path))
    .catch(() => undefined);
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

async function readSource(source: string, path: string): Promise<Buffer> {
  try {
    return await readFile(source);
  } catch (error) {
    throw new PublishError(`${path} vanished from the release while publishing (a build replaced it?); publish again`, { key: path, cause: error });
  }
}
