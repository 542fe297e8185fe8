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
  const deletions = orderDeletions(Object.keys(manifest.files).filter((path) => !present.has(path)));
  return { waves: orderUploads(uploads, (path) => !!manifest.files[path]?.digest, links), unchanged: files.length - uploads.length, deletions };
}

/**
 * `uploads` in waves, each file after every file it links that the store may lack (`isStored` false: never
 * uploaded, or an upload not seen to finish).
 */
export function orderUploads<T extends PublishFile>(uploads: readonly T[], isStored: (path: string) => boolean, links: LinkMap): T[][] {
  const sorted = [...uploads].sort((a, b) => byCodeUnits(a.path, b.path));
  // Uploads by their index: a full publish orders 400,000 files, and each map or set of their paths costs some 20 MB.
  const indexOf = new Map(sorted.map((file, k) => [file.path, k]));
  const graph = toGraph(sorted.length, (k) => {
    const needed: number[] = [];
    for (const target of links.get(sorted[k]!.path) ?? []) {
      const t = indexOf.get(target);
      if (t !== undefined && t !== k && !isStored(target)) needed.push(t);
    }
    return needed;
  });
  indexOf.clear();
  return orderByNeeds(graph).map((wave) => Array.from(wave, (k) => sorted[k]!));
}

/** Paths to delete in the order they go: pages first (a page gone first never links a file gone). */
export function orderDeletions(paths: string[]): string[] {
  return paths.sort((a, b) => Number(!a.endsWith('.html')) - Number(!b.endsWith('.html')) || a.localeCompare(b));
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Layers of `paths` where each path comes after every path it needs. A cycle (a new page and its feed link each
 * other) is broken where it leaves the fewest links unresolved: its members needing the fewest others go first.
 */
export function toWaves(paths: readonly string[], needs: ReadonlyMap<string, readonly string[]>): string[][] {
  const indexOf = new Map(paths.map((path, k) => [path, k]));
  const graph = toGraph(paths.length, (k) => (needs.get(paths[k]!) ?? []).flatMap((target) => indexOf.get(target) ?? []));
  return orderByNeeds(graph).map((wave) => Array.from(wave, (k) => paths[k]!));
}

/** toWaves by index, with typed arrays of counts and edges. */
function orderByNeeds(graph: NeedGraph): Int32Array[] {
  const waiting = new Int32Array(graph.size);
  for (let k = 0; k < graph.size; k++) waiting[k] = graph.needsStart[k + 1]! - graph.needsStart[k]!;
  const inCycle = findCycleMembers(graph);
  const waves: Int32Array[] = [];
  let left = Int32Array.from({ length: graph.size }, (_, k) => k);
  while (left.length > 0) {
    let wave = left.filter((k) => waiting[k] === 0);
    if (wave.length === 0) {
      const stuck = left.filter((k) => inCycle[k] === 1);
      const fewest = stuck.reduce((least, k) => Math.min(least, waiting[k]!), Infinity);
      wave = stuck.filter((k) => waiting[k] === fewest);
    }
    for (const k of wave) waiting[k] = -1;
    for (const k of wave) {
      for (let e = graph.neededByStart[k]!; e < graph.neededByStart[k + 1]!; e++) {
        const dependent = graph.neededBy[e]!;
        if (waiting[dependent]! > 0) waiting[dependent]! -= 1;
      }
    }
    left = left.filter((k) => waiting[k] !== -1);
    waves.push(wave);
  }
  return waves;
}

/** The needs between `paths` as edge lists by index (compressed rows): what each path needs, and what needs it. */
interface NeedGraph {
  size: number;
  needsStart: Int32Array;
  needs: Int32Array;
  neededByStart: Int32Array;
  neededBy: Int32Array;
}

/**
 * Needs as pairs of indexes (`from` needs `to`), in chunks of typed arrays: a full release has some two million, and
 * chunks grow without copying.
 */
export class NeedList {
  private chunks: Int32Array[] = [];
  length = 0;

  add(from: number, to: number): void {
    const at = (this.length % NEED_CHUNK) * 2;
    if (at === 0) this.chunks.push(new Int32Array(NEED_CHUNK * 2));
    const chunk = this.chunks[this.chunks.length - 1]!;
    chunk[at] = from;
    chunk[at + 1] = to;
    this.length += 1;
  }

  forEach(each: (from: number, to: number) => void): void {
    let left = this.length;
    for (const chunk of this.chunks) {
      const pairs = Math.min(left, NEED_CHUNK);
      for (let e = 0; e < pairs; e++) each(chunk[e * 2]!, chunk[e * 2 + 1]!);
      left -= pairs;
    }
  }

  clear(): void {
    this.chunks = [];
    this.length = 0;
  }
}

const NEED_CHUNK = 1 << 16;

/**
 * Waves of the indexes 0..size-1, each after every index it needs (`needs`, among them, emptied): orderUploads by
 * index, for a caller that keeps its files in columns (site/publish/release-files.ts).
 */
export function orderByNeedList(size: number, needs: NeedList): Int32Array[] {
  return orderByNeeds(toGraphOfNeeds(size, needs));
}

function toGraph(size: number, needsOf: (k: number) => readonly number[]): NeedGraph {
  const needs = new NeedList();
  for (let k = 0; k < size; k++) for (const t of needsOf(k)) needs.add(k, t);
  return toGraphOfNeeds(size, needs);
}

/** The graph of a need list (emptied), built a side at a time so the list is let go before the second side is built. */
function toGraphOfNeeds(size: number, list: NeedList): NeedGraph {
  const { start: needsStart, edges: needs } = toRows(size, list.length, (add) => list.forEach(add));
  list.clear();
  const { start: neededByStart, edges: neededBy } = toRows(size, needs.length, (add) => {
    for (let k = 0; k < size; k++) for (let e = needsStart[k]!; e < needsStart[k + 1]!; e++) add(needs[e]!, k);
  });
  return { size, needsStart, needs, neededByStart, neededBy };
}

/** Compressed rows of `count` pairs (row, value), which `pairs` gives twice: once counted, once placed. */
function toRows(size: number, count: number, pairs: (add: (row: number, value: number) => void) => void): { start: Int32Array; edges: Int32Array } {
  const start = new Int32Array(size + 1);
  pairs((row) => { start[row + 1]! += 1; });
  for (let k = 0; k < size; k++) start[k + 1]! += start[k]!;
  const edges = new Int32Array(count);
  const filled = start.slice(0, size);
  pairs((row, value) => { edges[filled[row]!++] = value; });
  return { start, edges };
}

/** 1 for each path that lies on a cycle of needs (strongly connected components of more than one path; Tarjan, iterative). */
function findCycleMembers(graph: NeedGraph): Uint8Array {
  const { size, needsStart, needs } = graph;
  const index = new Int32Array(size).fill(-1);
  const low = new Int32Array(size);
  const onStack = new Uint8Array(size);
  const stack = new Int32Array(size);
  const frames = new Int32Array(size);
  const next = new Int32Array(size);
  const members = new Uint8Array(size);
  let counter = 0;
  let stacked = 0;
  let depth = 0;
  const enter = (k: number) => {
    index[k] = low[k] = counter++;
    stack[stacked++] = k;
    onStack[k] = 1;
    frames[depth++] = k;
    next[k] = needsStart[k]!;
  };
  for (let root = 0; root < size; root++) {
    if (index[root] !== -1) continue;
    enter(root);
    while (depth > 0) {
      const k = frames[depth - 1]!;
      if (next[k]! < needsStart[k + 1]!) {
        const target = needs[next[k]!++]!;
        if (index[target] === -1) enter(target);
        else if (onStack[target] === 1) low[k] = Math.min(low[k]!, index[target]!);
        continue;
      }
      depth -= 1;
      if (depth > 0) low[frames[depth - 1]!] = Math.min(low[frames[depth - 1]!]!, low[k]!);
      if (low[k] !== index[k]) continue;
      let count = 0;
      let member: number;
      do {
        member = stack[--stacked]!;
        onStack[member] = 0;
        count += 1;
        members[member] = 1;
      } while (member !== k);
      if (count === 1) members[k] = 0;
    }
  }
  return members;
}
