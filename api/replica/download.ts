import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What identifies the copy held, to ask the store only for a newer one. */
export interface CopyVersion {
  etag: string | null;
  lastModified: string | null;
}

/** Longest a download may take before it is abandoned (the old copy keeps serving). */
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/**
 * Downloads the published database to `path` unless it is the version held (`If-None-Match`, `If-Modified-Since`);
 * answers the new version, or null when the store has no newer one. The file appears whole or not at all.
 * @example const version = await downloadCopy(url, held, 'data/replica/index-2.db');
 */
export async function downloadCopy(source: string, held: CopyVersion | null, path: string): Promise<CopyVersion | null> {
  const headers: Record<string, string> = {};
  if (held?.etag) headers['if-none-match'] = held.etag;
  if (held?.lastModified) headers['if-modified-since'] = held.lastModified;
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
    await pipeline(Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream), createWriteStream(temp));
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return version;
}

/** A URL without credentials or query, for messages. */
function toSafeUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
