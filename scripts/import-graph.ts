/**
 * The project's own import graph, read from the files' import specifiers: what the folder-direction tests
 * (scripts/folders.test.ts) check. Only relative specifiers are followed (packages are not the project's), and an
 * import that names types only is left out, since the compiler erases it and no bundle holds the file for it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../project.ts';

export interface ImportEdge {
  /** As written in the file. */
  specifier: string;
  /** The imported file, relative to the project root; null for a package or a file that does not exist. */
  file: string | null;
  typeOnly: boolean;
}

const STATIC_IMPORT = /(?:^|[\s;])(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
const BARE_IMPORT = /(?:^|[\s;])import\s*['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /import\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * Every import of a source file (TypeScript or an Astro component), static and dynamic.
 * @example readImports('api/operations/status.ts')[0] // { specifier: '../../domain/schemas.ts', file: 'domain/schemas.ts', typeOnly: false }
 */
export function readImports(file: string): ImportEdge[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const edge = (specifier: string, typeOnly: boolean): ImportEdge => ({ specifier, file: toProjectFile(file, specifier), typeOnly });
  const edges: ImportEdge[] = [];
  for (const [, , typeKeyword, names, specifier] of text.matchAll(STATIC_IMPORT)) {
    edges.push(edge(specifier!, Boolean(typeKeyword) || namesTypesOnly(names!)));
  }
  for (const [, specifier] of text.matchAll(BARE_IMPORT)) edges.push(edge(specifier!, false));
  for (const [, specifier] of text.matchAll(DYNAMIC_IMPORT)) edges.push(edge(specifier!, false));
  return edges;
}

/**
 * The files a set of entry files reach through imports that stay in a build (type-only imports left out).
 * @example reachableFiles(['site/src/pages/docs/index.astro']).has('site/src/lib/docs.ts') // true
 */
export function reachableFiles(entries: readonly string[]): Set<string> {
  const reached = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    for (const { file: imported, typeOnly } of readImports(file)) {
      if (imported !== null && !typeOnly && /\.(ts|astro|mjs)$/.test(imported)) pending.push(imported);
    }
  }
  return reached;
}

/**
 * The project's source files under a folder (relative to the root), tests and test helpers left out.
 * @example listSourceFiles('api').includes('api/app.ts') // true
 */
export function listSourceFiles(folder: string): string[] {
  const entries = readdirSync(join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(ts|astro|mjs)$/.test(entry.name) && !isTestFile(entry.name))
    .map((entry) => relative(PROJECT_ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => !file.split('/').includes('testing') && !file.split('/').includes('fixtures'))
    .sort();
}

function isTestFile(name: string): boolean {
  return /\.test\.ts$/.test(name) || name === 'testing.ts' || /-testing\.ts$/.test(name);
}

/** `{ type A, type B }` names types only; `{ type A, b }` or a default import does not. */
function namesTypesOnly(names: string): boolean {
  const braced = /^\{([^}]*)\}$/.exec(names.trim());
  if (!braced) return false;
  const parts = braced[1]!.split(',').map((part) => part.trim()).filter(Boolean);
  return parts.length > 0 && parts.every((part) => part.startsWith('type '));
}

function toProjectFile(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const absolute = resolve(PROJECT_ROOT, dirname(from), specifier);
  const candidates = [absolute, `${absolute}.ts`, join(absolute, 'index.ts')];
  const found = candidates.find((candidate) => existsSync(candidate) && !candidate.endsWith('/'));
  if (!found || !/\.(ts|astro|mjs|js|json|css)$/.test(found)) return null;
  return relative(PROJECT_ROOT, found);
}
