/**
 * Where the project's files are, whether the code runs from its TypeScript sources (tsx, vitest) or compiled into
 * `.build/` (`npm start`, see scripts/compile.ts). A bundle does not sit where its sources do, so files are found
 * from the project root, never relative to a module's own URL.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the nearest directory above this module (or the bundle it was compiled into) holding package.json. */
export const PROJECT_ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

/** Where `npm run compile` writes the JavaScript that `npm start` runs. */
export const BUILD_DIR = join(PROJECT_ROOT, '.build');

/** Whether this process runs the compiled JavaScript (`npm start`) rather than the TypeScript sources. */
export const RUNS_COMPILED = !import.meta.url.endsWith('.ts');

/**
 * The compiled JavaScript of a TypeScript entry point, given from the project root.
 * @example compiledPath('scripts/crawl.ts') // '/srv/psi/.build/scripts/crawl.mjs'
 */
export function compiledPath(entry: string): string {
  return join(BUILD_DIR, entry.replace(/\.ts$/, '.mjs'));
}

function findProjectRoot(dir: string): string {
  if (existsSync(join(dir, 'package.json'))) return dir;
  const parent = dirname(dir);
  if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  return findProjectRoot(parent);
}
