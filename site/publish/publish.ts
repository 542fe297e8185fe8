import { join } from 'node:path';
import { forEachConcurrent } from '../build/concurrent.ts';
import { readLinks } from './links.ts';
import { LEGACY_MANIFEST_PATH, type ManifestEntry } from './manifest.ts';
import { NeedList, orderByNeedList, orderDeletions, type PublishFile } from './plan.ts';
import { readReleaseFiles, readSource, ReleaseFiles, toDigest, toFileDigest } from './release-files.ts';
import type { Store } from './store.ts';

export { listPublishFiles } from './release-files.ts';

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
  const files = await readReleaseFiles(options.root, options.extra ?? {});
  const read = await store.readManifest();
  const state = await compareWithManifest(files, read.entries);
  const uploads = files.stored.reduce<number[]>((pending, stored, k) => (stored === Stored.Pending ? (pending.push(k), pending) : pending), []);
  const waves = await orderWaves(options.root, files, uploads, state);
  const deletions = orderDeletions(state.gone.map((entry) => entry.path));
  const bytes = uploads.reduce((sum, k) => sum + files.sizes[k]!, 0);
  options.onStart?.({ uploads: uploads.length, bytes, unchanged: files.count - uploads.length, deletions: deletions.length });

  // Files being uploaded are marked unknown before their wave starts, so a stop mid-wave re-uploads them.
  const write = () => store.writeManifest(() => toManifestEntries(files, state));
  const mark = (wave: Int32Array | undefined) => {
    for (const k of wave ?? []) files.stored[k] = Stored.Uploading;
    return write();
  };
  if (waves.length > 0) await mark(waves[0]);
  else if (read.legacy) await write();
  if (read.legacy) await store.remove([LEGACY_MANIFEST_PATH]);
  for (const [index, wave] of waves.entries()) {
    await forEachConcurrent(wave, options.concurrency ?? DEFAULT_CONCURRENCY, async (k) => {
      await uploadFile(options.root, store, files, k);
      files.stored[k] = Stored.Done;
      options.onUpload?.(files.toPublishFile(k));
    });
    await mark(waves[index + 1]);
  }
  if (deletions.length > 0) {
    await store.remove(deletions);
    state.gone = [];
    await write();
  }
  return { uploaded: uploads.length, unchanged: files.count - uploads.length, deleted: deletions.length, bytes, seconds: (performance.now() - started) / 1000 };
}

/** The uploads (indexes, ascending) in waves, each file after every file it links that the store may lack. */
async function orderWaves(root: string, files: ReleaseFiles, uploads: readonly number[], state: ManifestState): Promise<Int32Array[]> {
  const position = new Int32Array(files.count).fill(-1);
  uploads.forEach((k, p) => { position[k] = p; });
  const needs = new NeedList();
  await readLinks(root, uploads, files, (from, to) => {
    if (position[to] !== -1 && to !== from && !state.previous.get(to)?.digest) needs.add(position[from]!, position[to]!);
  });
  return orderByNeedList(uploads.length, needs).map((wave) => wave.map((p) => uploads[p]!));
}

/** Release files up to this size are read whole to be sent; a larger one (the services snapshot, 70 MB at 100,000 services) is sent as a stream. */
const WHOLE_UPLOAD_BYTES = 4 << 20;

/**
 * Uploads file `k`. An extra file (the database copy, 500 MB at 100,000 services) is unchanged while the publish
 * runs, so it is sent as a stream, never held whole, under the digest it was listed with. A release file is recorded
 * with what was sent, as read at its upload (a page re-rendered since it was listed is recorded as stored); a large
 * one is read once for its digest and size, then streamed.
 */
async function uploadFile(root: string, store: Store, files: ReleaseFiles, k: number): Promise<void> {
  const path = files.paths[k]!;
  const headers = files.headersOf(k);
  const source = files.sources.get(k);
  if (source !== undefined) {
    await store.put(path, { file: source, size: files.sizes[k]! }, headers);
    return;
  }
  const file = join(root, path);
  if (files.sizes[k]! > WHOLE_UPLOAD_BYTES) {
    const { size, digest } = await toFileDigest(file, path, headers);
    await store.put(path, { file, size }, headers);
    files.setDigest(k, digest);
    files.sizes[k] = size;
    return;
  }
  const body = await readSource(file, path);
  await store.put(path, body, headers);
  files.setDigest(k, toDigest(body, headers));
  files.sizes[k] = body.length;
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
  /** The manifest's entry of each file to upload that it lists (an older version, or an upload not seen to finish), by index. */
  previous: Map<number, { digest: string | null; size: number }>;
  /** Entries whose path left the release, in manifest order: deleted after every upload. */
  gone: ManifestEntry[];
}

/**
 * Marks each file Same or Pending against the manifest's entries (in the same order), read as they come: the
 * manifest is never held whole.
 */
async function compareWithManifest(files: ReleaseFiles, entries: AsyncIterable<ManifestEntry> | Iterable<ManifestEntry>): Promise<ManifestState> {
  const state: ManifestState = { previous: new Map(), gone: [] };
  let k = 0;
  for await (const entry of entries) {
    while (k < files.count && files.paths[k]! < entry.path) files.stored[k++] = Stored.Pending;
    if (files.paths[k] !== entry.path) {
      state.gone.push(entry);
      continue;
    }
    if (entry.digest !== null && files.hasDigest(k, entry.digest)) files.stored[k] = Stored.Same;
    else {
      files.stored[k] = Stored.Pending;
      // Copied out of the line the entry was read from, which a slice of it would keep alive.
      state.previous.set(k, { digest: entry.digest === null ? null : Buffer.from(entry.digest, 'latin1').toString('latin1'), size: entry.size });
    }
    k += 1;
  }
  while (k < files.count) files.stored[k++] = Stored.Pending;
  return state;
}

/** The manifest as the store holds it now: the release's files merged with the paths gone from it, in manifest order. */
function* toManifestEntries(files: ReleaseFiles, state: ManifestState): Generator<ManifestEntry> {
  let g = 0;
  for (let k = 0; k < files.count; k++) {
    const path = files.paths[k]!;
    while (g < state.gone.length && state.gone[g]!.path < path) yield state.gone[g++]!;
    const stored = files.stored[k];
    if (stored === Stored.Same || stored === Stored.Done) yield { path, digest: files.digestOf(k), size: files.sizes[k]! };
    else if (stored === Stored.Uploading) yield { path, digest: null, size: files.sizes[k]! };
    else {
      const previous = state.previous.get(k);
      if (previous) yield { path, ...previous };
    }
  }
  while (g < state.gone.length) yield state.gone[g++]!;
}
