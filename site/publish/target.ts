import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { litestreamPath, type LitestreamReplica } from '../../data/litestream.ts';

/**
 * Where a publish goes (`s3://BUCKET/PREFIX`) and the S3 client for it, configured by the standard AWS
 * variables (credentials, `AWS_REGION`, profiles) plus `S3_ENDPOINT` for a store that is not AWS (R2, MinIO),
 * `S3_REGION`, and `S3_FORCE_PATH_STYLE=1` for a store that wants the bucket in the path.
 */

export interface PublishTarget {
  bucket: string;
  /** The key prefix, empty or ending in `/`. */
  prefix: string;
}

/**
 * @example readTarget('s3://my-bucket/index/') // { bucket: 'my-bucket', prefix: 'index/' }
 */
export function readTarget(url: string): PublishTarget {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new Error(`--to wants s3://BUCKET/PREFIX (a bucket name of 3-63 lower-case letters, digits, dots, dashes), got "${url}"`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((segment) => segment === '.' || segment === '..')) throw new Error(`the prefix "${prefix}" has a dot segment`);
  return { bucket: match[1]!, prefix: prefix ? `${prefix}/` : '' };
}

/** Attempts of each request (the SDK backs off between them): a store's passing hiccup is retried, not a failure. */
const MAX_ATTEMPTS = 3;

/**
 * The client for the store the environment names.
 * @example const client = createS3Client(process.env);
 */
export function createS3Client(env: NodeJS.ProcessEnv, overrides: S3ClientConfig = {}): S3Client {
  return new S3Client({
    region: env.S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
    forcePathStyle: ['1', 'true', 'yes'].includes((env.S3_FORCE_PATH_STYLE ?? '').toLowerCase()),
    // Checksums only where the API requires them: the default streams aws-chunked bodies, which several
    // S3-compatible stores cannot read.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: MAX_ATTEMPTS,
    // Keys given in `env` are used as given; without them the SDK's chain (profiles, instance roles) finds them.
    ...(env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? { credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN } }
      : {}),
    ...overrides,
  });
}

/**
 * The Litestream replica a publish to `target` keeps (`<prefix>litestream/`), in the store the environment names;
 * `LITESTREAM_SNAPSHOT_INTERVAL` (default 1h) and `LITESTREAM_RETENTION` (default 2h) as Go durations. A replica
 * fetches each new snapshot whole and the WAL after it, and restores from both at every refresh: the interval bounds
 * a restore's work (an hour of passes' WAL) at the cost of one snapshot an hour. A replica needs only the newest
 * snapshot and the WAL after it, and the copy is rebuilt from the writer's database, never restored to an earlier
 * time, so retention only has to outlast a snapshot interval: the store then holds two or three snapshots and the WAL
 * since the oldest.
 * @example const replica = readLitestreamReplica(process.env, readTarget('s3://bucket/index'));
 */
export function readLitestreamReplica(env: NodeJS.ProcessEnv, target: PublishTarget): LitestreamReplica {
  const duration = (name: string, fallback: string) => {
    const value = env[name]?.trim() || fallback;
    if (!/^(\d+(h|m|s))+$/.test(value)) throw new Error(`${name} wants a duration like 24h or 90m, got "${value}"`);
    return value;
  };
  return {
    bucket: target.bucket,
    path: litestreamPath(target.prefix),
    endpoint: env.S3_ENDPOINT || undefined,
    region: env.S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: ['1', 'true', 'yes'].includes((env.S3_FORCE_PATH_STYLE ?? '').toLowerCase()),
    snapshotInterval: duration('LITESTREAM_SNAPSHOT_INTERVAL', '1h'),
    retention: duration('LITESTREAM_RETENTION', '2h'),
  };
}
