import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { byCacheOrder } from './digest-cache.ts';

/**
 * The manifest a publish keeps in the store (`.publish/manifest.tsv`): what is published under the prefix, one line
 * per object, by path in UTF-16 code unit order (as `<` compares), so a publish reads it as a stream merged with the
 * release's listing in the same order and writes it as a stream, never holding it whole: at 100,000 services it has
 * 400,000 lines. Line one names the format; each line after it is `path TAB digest TAB size`, the digest `-` where an
 * upload was started and not seen to finish (the object may hold anything, so the next publish uploads it again). A
 * path holding a tab, a line break or a leading `"` is written as a JSON string.
 */

export const MANIFEST_PATH = '.publish/manifest.tsv';
/** The manifest as one JSON object (`{"version":1,"files":{path:{digest,size}}}`), which publishes before this format wrote. */
export const LEGACY_MANIFEST_PATH = '.publish/manifest.json';
const HEADER = 'psi-publish-manifest 2';
const UNKNOWN = '-';

/** One object the manifest lists. */
export interface ManifestEntry {
  path: string;
  /** null: an upload was started and not seen to finish. */
  digest: string | null;
  size: number;
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

/** The manifest's line for one entry, with its line break. */
export function toManifestLine(entry: ManifestEntry): string {
  const path = /^"|[\t\r\n]/.test(entry.path) ? JSON.stringify(entry.path) : entry.path;
  return `${path}\t${entry.digest ?? UNKNOWN}\t${entry.size}\n`;
}

/**
 * The manifest's text for `entries` (in manifest order), in pieces of about `pieceBytes`, so a caller sends it as
 * a stream; call it again to send it again.
 */
export function* toManifestPieces(entries: Iterable<ManifestEntry>, pieceBytes = 1 << 16): Generator<Buffer> {
  let text = `${HEADER}\n`;
  let last: string | null = null;
  for (const entry of entries) {
    if (last !== null && byCacheOrder(last, entry.path) >= 0) throw new ManifestError(`manifest entries out of order: ${entry.path} after ${last}`);
    last = entry.path;
    text += toManifestLine(entry);
    if (text.length >= pieceBytes) {
      yield Buffer.from(text, 'utf8');
      text = '';
    }
  }
  if (text.length > 0) yield Buffer.from(text, 'utf8');
}

/** The manifest's entries read from its text as a stream, checked to be in order. */
export async function* readManifestLines(text: Readable): AsyncGenerator<ManifestEntry> {
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  let header = true;
  let last: string | null = null;
  try {
    for await (const line of lines) {
      if (header) {
        if (line !== HEADER) throw new ManifestError(`not a manifest this publish can read (it begins ${JSON.stringify(line.slice(0, 40))})`);
        header = false;
        continue;
      }
      if (line === '') continue;
      const entry = parseManifestLine(line);
      if (last !== null && byCacheOrder(last, entry.path) >= 0) throw new ManifestError(`manifest entries out of order: ${entry.path} after ${last}`);
      last = entry.path;
      yield entry;
    }
    if (header) throw new ManifestError('an empty manifest');
  } finally {
    lines.close();
    text.destroy();
  }
}

function parseManifestLine(line: string): ManifestEntry {
  const sizeAt = line.lastIndexOf('\t');
  const digestAt = line.lastIndexOf('\t', sizeAt - 1);
  const rawPath = line.slice(0, digestAt);
  const digest = line.slice(digestAt + 1, sizeAt);
  const size = Number(line.slice(sizeAt + 1));
  if (digestAt <= 0 || !Number.isFinite(size) || digest === '') throw new ManifestError(`a manifest line this publish cannot read: ${JSON.stringify(line.slice(0, 120))}`);
  return { path: rawPath.startsWith('"') ? (JSON.parse(rawPath) as string) : rawPath, digest: digest === UNKNOWN ? null : digest, size };
}

/**
 * The entries of a manifest in the legacy JSON format, in manifest order. It is parsed whole, once: the publish that
 * reads it writes the manifest in the line format and deletes it.
 */
export function readLegacyManifest(text: string): ManifestEntry[] {
  const manifest = JSON.parse(text) as { version?: unknown; files?: Record<string, { digest: string | null; size: number }> };
  if (manifest.version !== 1 || typeof manifest.files !== 'object' || manifest.files === null) throw new ManifestError('not a manifest this publish can read');
  return Object.keys(manifest.files).sort(byCacheOrder).map((path) => ({ path, digest: manifest.files![path]!.digest, size: manifest.files![path]!.size }));
}
