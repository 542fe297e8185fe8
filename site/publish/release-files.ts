import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { toCacheControl, toContentType } from '../../api/release-headers.ts';
import { forEachConcurrent } from '../build/concurrent.ts';
import { byCacheOrder, readDigestCache, writeDigestCache, type SeenFile } from './digest-cache.ts';
import type { PublishFile } from './plan.ts';
import { PublishError } from './store.ts';

/**
 * The files a publish sends, as a table of columns rather than an object per file: at 100,000 services a release
 * holds 400,000 files, and an object per file (path, size, time, headers, digest in hex) costs the publish some
 * 100 MB of its 250 MB target. Paths sit in one array in cache order (site/publish/digest-cache.ts), sizes and times
 * in Float64Arrays, each file's pair of headers as an index into the few pairs a release has, and digests as 32 raw
 * bytes in one Buffer (hex only where a digest is written or compared as text).
 */

/** A pair of headers files are stored with, and the text the digest covers (ends with a newline: see toDigest). */
export interface HeaderKind {
  contentType: string;
  cacheControl: string;
  text: string;
}

const DIGEST_BYTES = 32;
const HEX_DIGEST = /^[0-9a-f]{64}$/;
const STAT_CONCURRENCY = 32;
const FOLDER_CONCURRENCY = 8;

export class ReleaseFiles {
  readonly count: number;
  readonly sizes: Float64Array;
  /** Modification time in ms; NaN for a file that vanished or is not the release's own (an extra file). */
  readonly mtimes: Float64Array;
  /** Each file's index in `kinds`. */
  readonly kindOf: Uint16Array;
  readonly digests: Buffer;
  /** A publish's own mark of each file (publish.ts's Stored). */
  readonly stored: Uint8Array;
  readonly kinds: HeaderKind[] = [];
  private readonly kindIndex = new Map<string, number>();
  private readonly scratch = Buffer.alloc(DIGEST_BYTES);

  /**
   * @param paths in cache order, each once
   * @param sources where each extra file is on disk, by its index
   */
  constructor(readonly paths: readonly string[], readonly sources: ReadonlyMap<number, string>) {
    this.count = paths.length;
    this.sizes = new Float64Array(this.count);
    this.mtimes = new Float64Array(this.count).fill(Number.NaN);
    this.kindOf = new Uint16Array(this.count);
    this.digests = Buffer.alloc(this.count * DIGEST_BYTES);
    this.stored = new Uint8Array(this.count);
    for (let k = 0; k < this.count; k++) this.kindOf[k] = this.toKind(paths[k]!);
  }

  headersOf(k: number): HeaderKind {
    return this.kinds[this.kindOf[k]!]!;
  }

  digestOf(k: number): string {
    return this.digests.toString('hex', k * DIGEST_BYTES, (k + 1) * DIGEST_BYTES);
  }

  setDigest(k: number, digest: string | Buffer): void {
    if (typeof digest === 'string') this.digests.write(digest, k * DIGEST_BYTES, DIGEST_BYTES, 'hex');
    else digest.copy(this.digests, k * DIGEST_BYTES);
  }

  /** Whether file `k` has this digest (hex), without making a string of its own. */
  hasDigest(k: number, digest: string): boolean {
    if (!HEX_DIGEST.test(digest)) return false;
    this.scratch.write(digest, 0, DIGEST_BYTES, 'hex');
    return this.digests.compare(this.scratch, 0, DIGEST_BYTES, k * DIGEST_BYTES, (k + 1) * DIGEST_BYTES) === 0;
  }

  /** The index of `path`, or -1 (by bisection: a map of 400,000 paths would cost some 20 MB). */
  indexOf(path: string): number {
    let low = 0;
    let high = this.count - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = this.paths[middle]!;
      if (at === path) return middle;
      if (at < path) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  has(path: string): boolean {
    return this.indexOf(path) >= 0;
  }

  /** File `k` as a record (made when asked, never kept). */
  toPublishFile(k: number): PublishFile {
    const { contentType, cacheControl } = this.headersOf(k);
    return { path: this.paths[k]!, size: this.sizes[k]!, digest: this.digestOf(k), contentType, cacheControl };
  }

  private toKind(path: string): number {
    const contentType = toContentType(path);
    const cacheControl = toCacheControl(path);
    const text = `${contentType}\n${cacheControl}\n`;
    let kind = this.kindIndex.get(text);
    if (kind === undefined) {
      kind = this.kinds.push({ contentType, cacheControl, text }) - 1;
      this.kindIndex.set(text, kind);
    }
    return kind;
  }
}

/**
 * Every file of the release (dotfiles and dot folders left out: build records, never served) and the extra files
 * (an extra file's path replaces a release file's), with the digest each would be stored under. A release file whose
 * size, modification time and headers match the release's digest cache (written here) is not read again: a page
 * rendered since is a new file with a new time.
 */
export async function readReleaseFiles(root: string, extra: Record<string, string>): Promise<ReleaseFiles> {
  const extraPaths = Object.keys(extra);
  const found = (await listReleasePaths(root)).filter((path) => !Object.hasOwn(extra, path));
  const paths = found.concat(extraPaths).sort(byCacheOrder);
  const sources = new Map<number, string>();
  for (const path of extraPaths) sources.set(binarySearch(paths, path), extra[path]!);
  const files = new ReleaseFiles(paths, sources);
  const own = Int32Array.from({ length: files.count }, (_, k) => k).filter((k) => !sources.has(k));
  await forEachConcurrent(own, STAT_CONCURRENCY, async (k) => {
    const stats = await stat(join(root, paths[k]!)).catch(() => null);
    files.sizes[k] = stats?.size ?? 0;
    files.mtimes[k] = stats?.mtimeMs ?? Number.NaN;
  });
  const unread = await applyDigestCache(root, files, own);
  await forEachConcurrent(unread, STAT_CONCURRENCY, async (k) => {
    files.setDigest(k, toDigest(await readSource(join(root, paths[k]!), paths[k]!), files.headersOf(k)));
  });
  await writeDigestCache(root, files.kinds.map((kind) => kind.text), toSeenFiles(files, own));
  for (const [k, source] of sources) {
    const { size, digest } = await toFileDigest(source, paths[k]!, files.headersOf(k));
    files.sizes[k] = size;
    files.setDigest(k, digest);
  }
  return files;
}

/**
 * The release's files as records, by path in locale order.
 * @example (await listPublishFiles(root, {})).map((file) => file.digest)
 */
export async function listPublishFiles(root: string, extra: Record<string, string>): Promise<PublishFile[]> {
  const files = await readReleaseFiles(root, extra);
  return Array.from({ length: files.count }, (_, k) => files.toPublishFile(k)).sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The release's paths, `/`-separated, without dotfiles or anything in a dot folder: a folder at a time, so only one
 * folder's entries are held beside the paths (a listing of the whole tree at once holds an entry object per file).
 */
async function listReleasePaths(root: string): Promise<string[]> {
  const paths: string[] = [];
  // A level of the tree at a time, its folders read a few at once.
  for (let level = ['']; level.length > 0;) {
    const below: string[] = [];
    await forEachConcurrent(level, FOLDER_CONCURRENCY, async (folder) => {
      for (const entry of await readdir(folder === '' ? root : join(root, folder), { withFileTypes: true })) {
        if (entry.name.startsWith('.')) continue;
        // Joined, not concatenated: a concatenation is a string of two parts, larger, and flattened later at a cost.
        const path = folder === '' ? entry.name : [folder, entry.name].join('/');
        if (entry.isDirectory()) below.push(path);
        else if (entry.isFile()) paths.push(path);
      }
    });
    level = below;
  }
  return paths;
}

function binarySearch(paths: readonly string[], path: string): number {
  let low = 0;
  let high = paths.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (paths[middle] === path) return middle;
    if (paths[middle]! < path) low = middle + 1;
    else high = middle - 1;
  }
  throw new Error(`${path} is not among the paths`);
}

/** Gives each of `own` (ascending) the digest the cache holds for it when it is unchanged; answers the others. */
async function applyDigestCache(root: string, files: ReleaseFiles, own: Int32Array): Promise<number[]> {
  const unread: number[] = [];
  let o = 0;
  for await (const cached of readDigestCache(root)) {
    while (o < own.length && files.paths[own[o]!]! < cached.path) unread.push(own[o++]!);
    const k = own[o];
    if (k === undefined || files.paths[k] !== cached.path) continue;
    const same = files.sizes[k] === cached.size && files.mtimes[k] === cached.mtimeMs && files.headersOf(k).text === cached.headers;
    if (same && HEX_DIGEST.test(cached.digest)) files.setDigest(k, cached.digest);
    else unread.push(k);
    o += 1;
  }
  while (o < own.length) unread.push(own[o++]!);
  return unread;
}

/** The release's own files with a time, as the digest cache records them (one record at a time). */
function* toSeenFiles(files: ReleaseFiles, own: Int32Array): Generator<SeenFile> {
  for (const k of own) {
    if (Number.isNaN(files.mtimes[k]!)) continue;
    yield { path: files.paths[k]!, size: files.sizes[k]!, mtimeMs: files.mtimes[k]!, headers: files.headersOf(k).text, digest: files.digestOf(k) };
  }
}

/** The digest of a file as stored: its content and the headers it is stored with (raw bytes). */
export function toDigest(body: Uint8Array, headers: HeaderKind): Buffer {
  return createHash('sha256').update(body).update(`\n${headers.text}`).digest();
}

/** The digest and size of a file read as a stream (the database copy is too large to hold). */
export async function toFileDigest(source: string, path: string, headers: HeaderKind): Promise<{ size: number; digest: Buffer }> {
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
  return { size, digest: hash.update(`\n${headers.text}`).digest() };
}

export async function readSource(source: string, path: string): Promise<Buffer> {
  try {
    return await readFile(source);
  } catch (error) {
    throw new PublishError(`${path} vanished from the release while publishing (a build replaced it?); publish again`, { key: path, cause: error });
  }
}
