import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';

/**
 * Writing the files of a release. Into a new release (not yet served) files are written directly; into the
 * served release (incremental renders) each file is written beside its place and renamed over it, so a reader
 * gets the whole old file or the whole new one.
 */
export interface Output {
  root: string;
  write(path: string, content: string): void;
  /** Writes a file in pieces: `fill` hands each to `write`, so a large file is never one string. */
  writeInPieces(path: string, fill: (write: (piece: string) => void) => void): void;
  remove(path: string): void;
  /** Files written so far. */
  readonly written: number;
}

/**
 * @example const out = createOutput(release, { atomic: false }); out.write('services/a/index.html', html);
 */
export function createOutput(root: string, options: { atomic: boolean }): Output {
  const made = new Set<string>();
  let written = 0;
  const resolve = (path: string) => {
    const full = normalize(join(root, path));
    if (!full.startsWith(root + sep)) throw new Error(`refusing to write outside the release: ${path}`);
    return full;
  };
  /** Where a file is written first: beside its place when it replaces a served file, else its place. */
  const open = (path: string) => {
    const full = resolve(path);
    const dir = dirname(full);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    return { full, target: options.atomic ? `${full}.tmp-${process.pid}` : full };
  };
  return {
    root,
    write(path, content) {
      const { full, target } = open(path);
      writeFileSync(target, content);
      if (target !== full) renameSync(target, full);
      written += 1;
    },
    writeInPieces(path, fill) {
      const { full, target } = open(path);
      const fd = openSync(target, 'w');
      try {
        fill((piece) => void writeSync(fd, piece));
      } catch (error) {
        closeSync(fd);
        rmSync(target, { force: true });
        throw error;
      }
      closeSync(fd);
      if (target !== full) renameSync(target, full);
      written += 1;
    },
    remove(path) {
      rmSync(resolve(path), { recursive: true, force: true });
    },
    get written() {
      return written;
    },
  };
}
