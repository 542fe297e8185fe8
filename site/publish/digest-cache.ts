import { createReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * A release's digest cache (`.publish-digests.tsv`, in the release): the digest each file had when a publish last
 * read it, with its size, modification time and header text, so a file that kept them is not read again. It is
 * read as a stream merged with the release's paths in the same order, never held whole: at 100,000 services a
 * release holds 400,000 files, and a table of them all costs the publish more than its memory target. Line one is
 * the header texts (JSON), each line after it `path TAB size TAB mtimeMs TAB header-index TAB digest`, by path.
 */

const CACHE = '.publish-digests.tsv';

/** What the cache says of one file. */
export interface CachedDigest {
  path: string;
  size: number;
  mtimeMs: number;
  headers: string;
  digest: string;
}

/** A release file as this publish saw it (a vanished file has no time and is not cached). */
export interface SeenFile {
  path: string;
  size: number;
  mtimeMs: number | null;
  headers: string;
  digest: string;
}

/** Paths in the order the cache holds them (by UTF-16 code units, as `<` compares). */
export const byCacheOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The cache's entries in order; none when it is missing or unreadable (every file is then read). */
export async function* readDigestCache(root: string): AsyncGenerator<CachedDigest> {
  const stream = createReadStream(join(root, CACHE), { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let headers: string[] | null = null;
  try {
    for await (const line of lines) {
      if (headers === null) {
        headers = JSON.parse(line) as string[];
        continue;
      }
      const [path, size, mtimeMs, header, digest] = line.split('\t');
      const text = headers[Number(header)];
      // The digest as a string of its own: a part split from a line is a slice that keeps the whole line alive, and
      // the publish holds a digest per release file (400,000 lines, some 50 MB more at 100,000 services).
      if (path && digest && text !== undefined) yield { path, size: Number(size), mtimeMs: Number(mtimeMs), headers: text, digest: Buffer.from(digest, 'latin1').toString('latin1') };
    }
  } catch {
    // A missing or broken cache only means more files are read.
  } finally {
    lines.close();
    stream.destroy();
  }
}

/**
 * Writes the cache for `files` (in cache order, each header text among `headers`), beside its place and renamed over
 * it; a release that cannot take it (read-only) is simply read whole next time. Paths holding a tab or a line break
 * are left out (read each time).
 */
export async function writeDigestCache(root: string, headers: readonly string[], files: Iterable<SeenFile>): Promise<void> {
  const path = join(root, CACHE);
  const temporary = `${path}.tmp-${process.pid}`;
  const index = new Map(headers.map((text, k) => [text, k]));
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.write(`${JSON.stringify(headers)}\n`);
      let chunk = '';
      for (const file of files) {
        if (file.mtimeMs === null || /[\t\n\r]/.test(file.path) || !index.has(file.headers)) continue;
        chunk += `${file.path}\t${file.size}\t${file.mtimeMs}\t${index.get(file.headers)}\t${file.digest}\n`;
        if (chunk.length > 1 << 20) {
          await handle.write(chunk);
          chunk = '';
        }
      }
      await handle.write(chunk);
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch {
    await rm(temporary, { force: true });
  }
}
