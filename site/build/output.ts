import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';

/**
 * Writing the files of a release. Into a new release (not yet served) files are written directly; into the
 * served release (incremental renders) each file is written beside its place and renamed over it, so a reader
 * gets the whole old file or the whole new one.
 */
export interface Output {
  root: string;
  write(path: string, content: string): void;
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
  return {
    root,
    write(path, content) {
      const full = resolve(path);
      const dir = dirname(full);
      if (!made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      if (options.atomic) {
        const temp = `${full}.tmp-${process.pid}`;
        writeFileSync(temp, content);
        renameSync(temp, full);
      } else {
        writeFileSync(full, content);
      }
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
