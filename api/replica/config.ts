import { dirname, join, resolve } from 'node:path';
import { toDurationMs } from '../config.ts';

/** A read replica's settings: what it copies, where writes go, how often it looks for a new copy. */
export interface ReplicaConfig {
  /**
   * The published public copy (`https://cdn.example/snapshots/index.db.gz`, or a plain `.db`), downloaded whole; or
   * the publish target (`s3://bucket/index`), whose Litestream replica is followed, fetching only what changed.
   */
  source: string;
  /** The writer's origin, where every write is redirected. */
  primaryUrl: string;
  intervalMs: number;
  /** Where the downloaded copies are kept. */
  dir: string;
  /** The largest copy taken, compressed and uncompressed alike: a larger one is abandoned while downloading. */
  maxBytes: number;
}

/** 4 GiB: far above a real index's copy, and a bound on what a store that went wrong can fill a disk with. */
const DEFAULT_MAX_BYTES = 4 * 1024 ** 3;

/**
 * The replica settings from `REPLICA_OF` (an http(s) URL of the published copy, or `s3://BUCKET/PREFIX` to follow
 * the Litestream replica a publish there keeps, read with the store variables of a publish), `PRIMARY_URL`, `REPLICA_INTERVAL` (default 60 s), `REPLICA_MAX_BYTES`
 * (default 4 GiB), or null when the server is the writer (no `REPLICA_OF`). Copies go beside `DATABASE_PATH`, in
 * `replica/`.
 * @example readReplicaConfig({ REPLICA_OF: 'https://cdn.example/snapshots/index.db.gz', PRIMARY_URL: 'https://index.example' });
 */
export function readReplicaConfig(env: NodeJS.ProcessEnv): ReplicaConfig | null {
  if (!env.REPLICA_OF) return null;
  const source = env.REPLICA_OF.startsWith('s3://') ? toStoreUrl(env.REPLICA_OF) : toHttpUrl('REPLICA_OF', env.REPLICA_OF, ' or s3://BUCKET/PREFIX');
  if (!env.PRIMARY_URL) throw new Error('REPLICA_OF needs PRIMARY_URL: the writer that answers submissions, purchases, claims and webhooks');
  return {
    source,
    primaryUrl: toHttpUrl('PRIMARY_URL', env.PRIMARY_URL).replace(/\/+$/, ''),
    intervalMs: toDurationMs('REPLICA_INTERVAL', env.REPLICA_INTERVAL, 60_000),
    dir: join(dirname(resolve(env.DATABASE_PATH || 'data/index.db')), 'replica'),
    maxBytes: toByteCount('REPLICA_MAX_BYTES', env.REPLICA_MAX_BYTES, DEFAULT_MAX_BYTES),
  };
}

/**
 * A size given in bytes (`1048576`) or binary units (`512K`, `300M`, `4G`, with an optional `iB` or `B`).
 * @example toByteCount('REPLICA_MAX_BYTES', '2G', 0) // 2147483648
 */
function toByteCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const match = /^(\d+)\s*(?:([KMG])(?:i?B)?)?$/i.exec(value.trim());
  if (!match || Number(match[1]) === 0) throw new Error(`${name} must be a size like 500M or 4G (or a number of bytes); got "${value}"`);
  const unit = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[(match[2] ?? '').toUpperCase() as '' | 'K' | 'M' | 'G'];
  return Number(match[1]) * unit;
}

function toHttpUrl(name: string, value: string, or = ''): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL${or}, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an absolute http(s) URL${or}, got "${value}"`);
  return url.href;
}

/** A publish target (`s3://BUCKET/PREFIX`), whose Litestream replica the replica follows. */
function toStoreUrl(value: string): string {
  if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(value)) throw new Error(`REPLICA_OF wants s3://BUCKET/PREFIX (where npm run publish writes), got "${value}"`);
  return value;
}
