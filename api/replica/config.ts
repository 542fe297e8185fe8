import { dirname, join, resolve } from 'node:path';
import { toDurationMs } from '../config.ts';

/** A read replica's settings: what it copies, where writes go, how often it looks for a new copy. */
export interface ReplicaConfig {
  /** The published database copy (`https://cdn.example/snapshots/index.db`). */
  source: string;
  /** The writer's origin, where every write is redirected. */
  primaryUrl: string;
  intervalMs: number;
  /** Where the downloaded copies are kept. */
  dir: string;
}

/**
 * The replica settings from `REPLICA_OF`, `PRIMARY_URL`, `REPLICA_INTERVAL` (default 60 s), or null when the
 * server is the writer (no `REPLICA_OF`). Copies go beside `DATABASE_PATH`, in `replica/`.
 * @example readReplicaConfig({ REPLICA_OF: 'https://cdn.example/snapshots/index.db', PRIMARY_URL: 'https://index.example' });
 */
export function readReplicaConfig(env: NodeJS.ProcessEnv): ReplicaConfig | null {
  if (!env.REPLICA_OF) return null;
  const source = toHttpUrl('REPLICA_OF', env.REPLICA_OF);
  if (!env.PRIMARY_URL) throw new Error('REPLICA_OF needs PRIMARY_URL: the writer that answers submissions, purchases, claims and webhooks');
  return {
    source,
    primaryUrl: toHttpUrl('PRIMARY_URL', env.PRIMARY_URL).replace(/\/+$/, ''),
    intervalMs: toDurationMs('REPLICA_INTERVAL', env.REPLICA_INTERVAL, 60_000),
    dir: join(dirname(resolve(env.DATABASE_PATH || 'data/index.db')), 'replica'),
  };
}

function toHttpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an absolute http(s) URL, got "${value}"`);
  return url.href;
}
