import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { RefusedCopyError } from '../../data/public-copy.ts';

/** What identifies the copy held, to ask the store only for a newer one. */
export interface CopyVersion {
  etag: string | null;
  lastModified: string | null;
}

/** A copy a replica does not serve, with the version it came as (so it is not downloaded again) and the reason. */
export class RefusedDownloadError extends Error {
  constructor(message: string, readonly version: CopyVersion) {
    super(message);
  }
}

/** Longest a download may take before it is abandoned (the old copy keeps serving). */
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/** The first bytes of every gzip stream (RFC 1952); a SQLite file starts with `SQLite format 3`. */
const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * Downloads the published copy to `path` unless it is the version held (`If-None-Match`, `If-Modified-Since`),
 * gunzipping it as it arrives when it is a gzip file (`snapshots/index.db.gz`; a plain `.db` is taken as it is);
 * answers the new version, or null when the store has no newer one. More than `maxBytes` as downloaded or as
 * unpacked abandons it with a RefusedDownloadError. The file appears whole or not at all.
 * @example const version = await downloadCopy(url, held, 'data/replica/index-2.db', 4 * 1024 ** 3);
 */
export async function downloadCopy(source: string, held: CopyVersion | null, path: string, maxBytes: number): Promise<CopyVersion | null> {
  const headers: Record<string, string> = {};
  // The date only without an ETag: it has a second's resolution, and some stores answer 304 to it even when the
  // ETag differs.
  if (held?.etag) headers['if-none-match'] = held.etag;
  else if (held?.lastModified) headers['if-modified-since'] = held.lastModified;
  const answer = await fetch(source, { headers, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (answer.status === 304) return null;
  if (!answer.ok || !answer.body) throw new Error(`${toSafeUrl(source)} answered HTTP ${answer.status}`);
  const version = { etag: answer.headers.get('etag'), lastModified: answer.headers.get('last-modified') };
  if (held && ((version.etag && version.etag === held.etag) || (!version.etag && version.lastModified === held.lastModified))) {
    await answer.body.cancel();
    return null;
  }
  const temp = `${path}.download`;
  try {
    await pipeline(
      Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream),
      capBytes(maxBytes, 'downloaded'),
      gunzipWhenCompressed,
      capBytes(maxBytes, 'unpacked'),
      createWriteStream(temp),
    );
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error instanceof RefusedCopyError ? new RefusedDownloadError(error.message, version) : error;
  }
  return version;
}

/** Passes chunks on until more than `maxBytes` went through, then fails the download. */
function capBytes(maxBytes: number, what: string) {
  return async function* (chunks: AsyncIterable<Buffer>) {
    let total = 0;
    for await (const chunk of chunks) {
      total += chunk.length;
      if (total > maxBytes) throw new RefusedCopyError(`over REPLICA_MAX_BYTES (${maxBytes} bytes) ${what}`);
      yield chunk;
    }
  };
}

/** The stream unpacked when it starts as gzip does, else as it is. */
async function* gunzipWhenCompressed(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const all = (async function* () {
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  })();
  if (!GZIP_MAGIC.every((byte, index) => first.value[index] === byte)) {
    yield* all;
    return;
  }
  const gunzip = createGunzip();
  const feeding = pipeline(Readable.from(all), gunzip);
  feeding.catch(() => undefined);
  yield* gunzip;
  await feeding;
}

/** A URL without credentials or query, for messages. */
function toSafeUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
