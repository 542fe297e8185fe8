import { describe, expect, it } from 'vitest';
import { listSourceFiles, reachableFiles, readImports } from './import-graph.ts';

/*
 * The folders' directions (docs/decisions.md "Folders and their directions"), read from the import specifiers of the
 * project's own files: the site compiles the API's declarations and never a handler, the API and the webhook worker
 * reach the crawler through its one public entry, and no two folders import each other, directly or around a loop.
 */

const FOLDERS = ['api', 'crawler', 'data', 'domain', 'net', 'scripts', 'server', 'site', 'webhooks'];

/**
 * The api/ modules the site's build may compile: the operations' declarations and the shapes they and the purchase
 * page need. A handler, or anything a handler reaches (the app, the rate limits, the resolver), is not among them.
 */
const SITE_MAY_COMPILE = [
  /^api\/declaration\.ts$/,
  /^api\/declarations\/[\w-]+\.ts$/,
  /^api\/lookup-limits\.ts$/,
  /^api\/purchase\/schemas\.ts$/,
  /^api\/purchase\/typed-data\.ts$/,
];

const folderOf = (file: string) => file.split('/')[0]!;

describe('the site build', () => {
  const compiled = [...reachableFiles(listSourceFiles('site/src'))];

  it('compiles the operations\' declarations, never a handler or what one reaches', () => {
    const fromApi = compiled.filter((file) => folderOf(file) === 'api');
    expect(fromApi).toContain('api/declarations/index.ts');
    expect(fromApi.filter((file) => !SITE_MAY_COMPILE.some((allowed) => allowed.test(file)))).toEqual([]);
  });

  it('compiles nothing of the crawler, the resolver, the webhook worker or the server', () => {
    expect(compiled.filter((file) => ['crawler', 'net', 'webhooks', 'server'].includes(folderOf(file)))).toEqual([]);
  });
});

describe('the API and the webhook worker', () => {
  it('reach the crawler only through its public entry, crawler/index.ts', () => {
    const internals = [...listSourceFiles('api'), ...listSourceFiles('webhooks')].flatMap((file) =>
      readImports(file).filter(({ file: imported }) => imported !== null && folderOf(imported) === 'crawler' && imported !== 'crawler/index.ts')
        .map(({ specifier }) => `${file} imports ${specifier}`));
    expect(internals).toEqual([]);
  });
});

describe('folders', () => {
  it('import each other in one direction only: no folder-level cycle', () => {
    const edges = new Map(FOLDERS.map((folder) => [folder, new Map<string, string>()]));
    for (const folder of FOLDERS) {
      for (const file of listSourceFiles(folder)) {
        for (const { file: imported } of readImports(file)) {
          const to = imported === null ? null : folderOf(imported);
          if (to !== null && to !== folder && edges.has(to)) edges.get(folder)!.set(to, `${file} imports ${imported}`);
        }
      }
    }
    expect(findCycle(edges)).toEqual([]);
  });
});

/** One loop of folders with, for each step, a file that makes it; empty when there is none. */
function findCycle(edges: Map<string, Map<string, string>>): string[] {
  const done = new Set<string>();
  const visit = (folder: string, path: string[]): string[] => {
    const at = path.indexOf(folder);
    if (at >= 0) return path.slice(at).map((from, i, loop) => edges.get(from)!.get(loop[i + 1] ?? folder)!);
    if (done.has(folder)) return [];
    for (const to of edges.get(folder)!.keys()) {
      const cycle = visit(to, [...path, folder]);
      if (cycle.length > 0) return cycle;
    }
    done.add(folder);
    return [];
  };
  for (const folder of edges.keys()) {
    const cycle = visit(folder, []);
    if (cycle.length > 0) return cycle;
  }
  return [];
}
