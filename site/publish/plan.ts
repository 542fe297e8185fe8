/**
 * What a publish does, decided before it touches the store: which files to upload, in which order, and which
 * objects to delete afterwards. Pure, so its rules are tested with tables.
 *
 * The order keeps every published page readable and every same-site link resolvable whenever a publish stops:
 * the links each file actually holds (site/publish/links.ts) decide it, so a file is uploaded only after every
 * file it links that the store does not hold yet. Nothing is deleted until every upload is done.
 */

/** One file of a release as it would be stored: its digest covers the content and the headers it is stored with. */
export interface PublishFile {
  /** Path inside the release, `/`-separated (`services/a/index.html`). */
  path: string;
  size: number;
  /** sha256 of the content, the Content-Type and the Cache-Control. */
  digest: string;
  contentType: string;
  cacheControl: string;
}

/**
 * What is published under a prefix, kept in the store beside it. An entry whose digest is null may hold anything
 * (an upload of it was started and not seen to finish), so the next publish uploads it again.
 */
export interface Manifest {
  version: 1;
  files: Record<string, { digest: string | null; size: number }>;
}

export interface PublishPlan {
  /** Uploads in waves: a wave starts when the one before it is complete. */
  waves: PublishFile[][];
  unchanged: number;
  /** Paths published before and gone from the release, deleted after every upload (pages before the rest). */
  deletions: string[];
}

/** The release paths each file links, by path (files that link nothing may be absent). */
export type LinkMap = ReadonlyMap<string, readonly string[]>;

/** The manifest's own key under the prefix; dotfiles are never part of a release. */
export const MANIFEST_PATH = '.publish/manifest.json';

export const EMPTY_MANIFEST: Manifest = { version: 1, files: {} };

/** The files a publish uploads: those the manifest does not hold with the same digest. */
export function listChangedFiles<T extends PublishFile>(files: readonly T[], manifest: Manifest): T[] {
  return files.filter((file) => manifest.files[file.path]?.digest !== file.digest);
}

/**
 * The plan that makes the store hold `files` when it holds what `manifest` says, the uploads ordered by `links`.
 * @example toPublishPlan(files, EMPTY_MANIFEST, new Map()).waves.flat().length === files.length
 */
export function toPublishPlan(files: readonly PublishFile[], manifest: Manifest, links: LinkMap): PublishPlan {
  const uploads = listChangedFiles(files, manifest);
  const present = new Set(files.map((file) => file.path));
  const byPath = new Map(uploads.map((file) => [file.path, file]));
  const deletions = Object.keys(manifest.files)
    .filter((path) => !present.has(path))
    .sort((a, b) => Number(!a.endsWith('.html')) - Number(!b.endsWith('.html')) || a.localeCompare(b));
  // A link waits only for a file the store may lack: one being uploaded that no finished upload put there.
  const missing = (path: string) => byPath.has(path) && !manifest.files[path]?.digest;
  const needs = new Map(uploads.map((file) => [file.path, (links.get(file.path) ?? []).filter((target) => target !== file.path && missing(target))]));
  const waves = toWaves([...byPath.keys()].sort(), needs).map((wave) => wave.map((path) => byPath.get(path)!));
  return { waves, unchanged: files.length - uploads.length, deletions };
}

/**
 * Layers of `paths` where each path comes after every path it needs. A cycle (a new page and its feed link each
 * other) is broken where it leaves the fewest links unresolved: its members needing the fewest others go first.
 */
export function toWaves(paths: readonly string[], needs: ReadonlyMap<string, readonly string[]>): string[][] {
  // A count of the needs each path still waits for, not a set of them: 400,000 paths at a full publish.
  const waiting = new Map(paths.map((path) => [path, needs.get(path)?.length ?? 0]));
  const neededBy = new Map<string, string[]>();
  for (const path of paths) {
    for (const target of needs.get(path) ?? []) {
      const list = neededBy.get(target);
      if (list) list.push(path);
      else neededBy.set(target, [path]);
    }
  }
  const inCycle = findCycleMembers(paths, needs);
  const waves: string[][] = [];
  while (waiting.size > 0) {
    let wave = [...waiting.keys()].filter((path) => waiting.get(path) === 0);
    if (wave.length === 0) {
      const stuck = [...waiting.keys()].filter((path) => inCycle.has(path));
      const fewest = stuck.reduce((least, path) => Math.min(least, waiting.get(path)!), Infinity);
      wave = stuck.filter((path) => waiting.get(path) === fewest);
    }
    for (const path of wave) waiting.delete(path);
    for (const path of wave) {
      for (const dependent of neededBy.get(path) ?? []) {
        const left = waiting.get(dependent);
        if (left !== undefined) waiting.set(dependent, left - 1);
      }
    }
    waves.push(wave);
  }
  return waves;
}

/** The paths that lie on a cycle of `needs` (strongly connected components of more than one path; Tarjan, iterative). */
function findCycleMembers(paths: readonly string[], needs: ReadonlyMap<string, readonly string[]>): Set<string> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const members = new Set<string>();
  let counter = 0;
  for (const root of paths) {
    if (index.has(root)) continue;
    const frames: Array<{ path: string; next: number }> = [{ path: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const targets = needs.get(frame.path) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          frames.push({ path: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.path, Math.min(low.get(frame.path)!, index.get(target)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.path, Math.min(low.get(parent.path)!, low.get(frame.path)!));
      if (low.get(frame.path) !== index.get(frame.path)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.path);
      if (component.length > 1) for (const path of component) members.add(path);
    }
  }
  return members;
}
