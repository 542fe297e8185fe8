/**
 * `npm run compile`: bundles the server, the crawl and the publish into plain JavaScript under `.build/`, which
 * `npm start`, its children and `npm run publish` run with plain node. Under tsx every process also carries the loader's thread and a cost per
 * module loaded through its hooks, so every process would start larger than plain node runs it. Packages stay in
 * node_modules; code split into chunks loads when first imported, so viem stays out of memory until the purchase
 * preview is first asked for.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUILD_DIR, compiledPath, PROJECT_ROOT } from '../project.ts';

/** What `npm run publish` and `npm run rebuild -- --publish` run: the publish first, then its copy child. */
export const PUBLISH_ENTRIES = ['scripts/publish.ts', 'scripts/publish-copy.ts'];

/** What `npm start` and `npm run publish` run, from the project root. */
export const PRODUCTION_ENTRIES = ['server/main.ts', 'scripts/crawl.ts', 'scripts/deliver.ts', 'scripts/node-args.ts', ...PUBLISH_ENTRIES];

/**
 * Compiles TypeScript entry points (from the project root) into `.build/`; answers their compiled paths.
 * Earlier chunks are left in place: a running server may still import them.
 * @example const [server] = await compile(['server/main.ts']); // '/srv/psi/.build/server/main.mjs'
 */
export async function compile(entries: string[]): Promise<string[]> {
  const { outputFiles } = await build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: entries,
    outdir: BUILD_DIR,
    outbase: '.',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    write: false,
  });
  for (const file of outputFiles) writeChanged(file.path, file.contents);
  return entries.map(compiledPath);
}

/**
 * Writes a compiled file only when its bytes changed, through a rename: a process starting from `.build/` (a server,
 * a publish, a test's child) while another compile runs reads the old file or the new one, never half of one.
 */
function writeChanged(path: string, contents: Uint8Array): void {
  if (existsSync(path) && readFileSync(path).equals(contents)) return;
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await compile(PRODUCTION_ENTRIES);
