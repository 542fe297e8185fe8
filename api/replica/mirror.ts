import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { RefusedCopyError } from '../../data/public-copy.ts';

/**
 * A replica's local mirror of the Litestream replica in the store: the objects a restore needs (the latest snapshot
 * of the latest generation and the WAL segments from it on), fetched once each. Litestream writes every object once
 * under a name of its own and never changes it, so an object held is never fetched again and a refresh after a small
 * change fetches only the new WAL segments; this is a mirror of files, not a diff of databases.
 */

/** An object of the Litestream replica, by its name under `generations/`. */
interface ReplicaObject {
  key: string;
  name: string;
  size: number;
  modified: Date;
}

/** What a refresh of the mirror did. */
export interface MirrorRefresh {
  /** Objects fetched, and their bytes. */
  fetched: number;
  bytes: number;
}

/** `generations/<generation>/snapshots/<index>.snapshot.lz4` or `.../wal/<index>_<offset>.wal.lz4`, as Litestream 0.3 names them. */
const OBJECT_NAME = /^generations\/([0-9a-f]{16})\/(snapshots|wal)\/([0-9a-f]{8})(?:_[0-9a-f]{8})?\.(?:snapshot|wal)\.lz4$/;

/**
 * Brings the mirror in `dir` to what a restore of the replica at `bucket`/`path` needs: fetches the objects it lacks
 * (each written whole or not at all, dated as in the store), deletes those no longer needed. More than `maxBytes` in
 * all refuses the replica with a RefusedCopyError before anything is fetched.
 * @example const { bytes } = await refreshMirror(client, 'site', 'index/litestream', 'data/replica/litestream', 4 * 1024 ** 3);
 */
export async function refreshMirror(client: S3Client, bucket: string, path: string, dir: string, maxBytes: number): Promise<MirrorRefresh> {
  const needed = selectNeeded(await listReplica(client, bucket, path));
  // Nothing to restore from (yet): what is held stays, for a listing that comes back whole.
  if (needed.length === 0) return { fetched: 0, bytes: 0 };
  const total = needed.reduce((sum, object) => sum + object.size, 0);
  if (total > maxBytes) throw new RefusedCopyError(`the Litestream replica needs ${total} bytes, over REPLICA_MAX_BYTES (${maxBytes} bytes)`);
  const held = new Map(listHeld(dir).map((name) => [name, statSync(join(dir, name)).size]));
  const missing = needed.filter((object) => held.get(object.name) !== object.size);
  for (const object of missing) await fetchObject(client, bucket, object, join(dir, object.name));
  const keep = new Set(needed.map((object) => object.name));
  for (const name of held.keys()) if (!keep.has(name)) rmSync(join(dir, name), { force: true });
  return { fetched: missing.length, bytes: missing.reduce((sum, object) => sum + object.size, 0) };
}

/** Every object of the replica (a listing, page by page). */
async function listReplica(client: S3Client, bucket: string, path: string): Promise<ReplicaObject[]> {
  const prefix = `${path}/generations/`;
  const objects: ReplicaObject[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const item of page.Contents ?? []) {
      const name = item.Key!.slice(path.length + 1);
      if (OBJECT_NAME.test(name)) objects.push({ key: item.Key!, name, size: item.Size ?? 0, modified: item.LastModified ?? new Date(0) });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

/**
 * What a restore reads: of the generation written last, its latest snapshot and the WAL segments of that index and
 * after. Empty when the replica has no snapshot yet.
 */
function selectNeeded(objects: ReplicaObject[]): ReplicaObject[] {
  const parts = (object: ReplicaObject) => OBJECT_NAME.exec(object.name)!;
  const latest = new Map<string, number>();
  for (const object of objects) latest.set(parts(object)[1]!, Math.max(latest.get(parts(object)[1]!) ?? 0, object.modified.getTime()));
  // A generation whose snapshot is still being written cannot be restored yet.
  const restorable = new Set(objects.filter((object) => parts(object)[2] === 'snapshots').map((object) => parts(object)[1]!));
  const generation = [...latest].filter(([name]) => restorable.has(name)).sort((a, b) => b[1] - a[1] || b[0].localeCompare(a[0]))[0]?.[0];
  const own = objects.filter((object) => parts(object)[1] === generation);
  const snapshot = own.filter((object) => parts(object)[2] === 'snapshots').sort((a, b) => parts(b)[3]!.localeCompare(parts(a)[3]!))[0];
  if (!snapshot) return [];
  const index = parts(snapshot)[3]!;
  return [snapshot, ...own.filter((object) => parts(object)[2] === 'wal' && parts(object)[3]! >= index)];
}

/** The names of the files held under `dir`, as `generations/...`. */
function listHeld(dir: string): string[] {
  try {
    return readdirSync(join(dir, 'generations'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.download'))
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Fetches one object to `file`, whole or not at all, dated as the store dates it (Litestream orders by it). */
async function fetchObject(client: S3Client, bucket: string, object: ReplicaObject, file: string): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.download`;
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: object.key }));
    await pipeline(answer.Body as Readable, createWriteStream(temp));
    if (statSync(temp).size !== object.size) throw new Error(`${object.key} came with ${statSync(temp).size} bytes, listed with ${object.size}`);
    utimesSync(temp, object.modified, object.modified);
    await rename(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
