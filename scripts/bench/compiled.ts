/**
 * The benchmark's children run what production runs: compiled by the same step as `npm start` (scripts/compile.ts),
 * together with the production entry points, once per run, and started with plain node.
 */
import { compiledPath } from '../../project.ts';
import { compile, PRODUCTION_ENTRIES } from '../compile.ts';

const CHILDREN = ['scripts/bench/serve-app.ts', 'scripts/bench/serve-bare.ts', 'scripts/bench/fleet-child.ts', 'scripts/bench/load-child.ts',
  'scripts/bench/freshness-fleet-child.ts'];

let compiled: Promise<unknown> | undefined;

/**
 * The compiled JavaScript of a child's entry point (from the project root), compiling them all on the first call.
 * @example fork(await compiledChild('scripts/bench/serve-app.ts'), [databasePath], { execArgv: [] });
 */
export async function compiledChild(entry: string): Promise<string> {
  compiled ??= compile([...PRODUCTION_ENTRIES, ...CHILDREN]);
  await compiled;
  return compiledPath(entry);
}
