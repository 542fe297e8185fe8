import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3ServiceException, type S3Client,
} from '@aws-sdk/client-s3';
import { LEGACY_MANIFEST_PATH, MANIFEST_PATH, readLegacyManifest, readManifestLines, toManifestPieces, type ManifestEntry } from './manifest.ts';
import type { PublishTarget } from './target.ts';

/**
 * The store a publish writes: objects under the target's prefix, and the manifest of what is published there.
 * Every failure becomes a PublishError saying what the store answered.
 */

export class PublishError extends Error {
  override name = 'PublishError';
  constructor(message: string, readonly facts: { key?: string; status?: number; code?: string; cause?: unknown } = {}) {
    super(message, { cause: facts.cause });
  }
}

export interface Store {
  target: PublishTarget;
  /** Throws when the bucket cannot be reached, does not exist, or refuses these credentials. */
  assertWritable(): Promise<void>;
  /** The manifest's entries, in manifest order (site/publish/manifest.ts), read as they are consumed. */
  readManifest(): Promise<ManifestRead>;
  /** Writes the manifest from `entries` (in manifest order), as a stream; called again on a retry. */
  writeManifest(entries: () => Iterable<ManifestEntry>): Promise<void>;
  /** Uploads bytes, or a file on disk as a stream (`size` bytes; sent afresh on each attempt). */
  put(path: string, body: Uint8Array | LocalFile, headers: { contentType: string; cacheControl: string }): Promise<void>;
  /** Deletes these paths (1000 to a request); a path already gone is no failure. */
  remove(paths: readonly string[]): Promise<void>;
}

export interface ManifestRead {
  entries: AsyncIterable<ManifestEntry> | Iterable<ManifestEntry>;
  /** Read from the legacy JSON manifest (LEGACY_MANIFEST_PATH), which the publish replaces. */
  legacy: boolean;
}

/** A file on disk to upload without holding it. */
export interface LocalFile {
  file: string;
  size: number;
}

const DELETE_BATCH = 1000;
/** Attempts at a file or the manifest sent as a stream: the SDK cannot send a stream it has read again, so each attempt starts it anew. */
const STREAM_ATTEMPTS = 3;

/**
 * @example const store = createStore(createS3Client(process.env), readTarget('s3://bucket/site'));
 */
export function createStore(client: S3Client, target: PublishTarget): Store {
  const { bucket, prefix } = target;
  const where = `s3://${bucket}/${prefix}`;
  const call = async <T>(what: string, key: string | undefined, send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (error) {
      throw toPublishError(error, what, key, where);
    }
  };
  return {
    target,
    assertWritable: () => call('reaching the bucket', undefined, () => client.send(new HeadBucketCommand({ Bucket: bucket }))).then(() => undefined),
    async readManifest() {
      const key = `${prefix}${MANIFEST_PATH}`;
      const text = await call('reading the manifest', key, () => readObject(client, bucket, key));
      if (text !== null) return { entries: readManifestLines(text), legacy: false };
      const legacyKey = `${prefix}${LEGACY_MANIFEST_PATH}`;
      const legacy = await call('reading the manifest', legacyKey, () => readObject(client, bucket, legacyKey));
      if (legacy === null) return { entries: [], legacy: false };
      const entries = readLegacyManifest(await call('reading the manifest', legacyKey, () => readText(legacy)));
      return { entries, legacy: true };
    },
    async writeManifest(entries) {
      const key = `${prefix}${MANIFEST_PATH}`;
      let length = 0;
      for (const piece of toManifestPieces(entries())) length += piece.length;
      for (let attempt = 1; ; attempt++) {
        try {
          return await call('writing the manifest', key, () => client.send(new PutObjectCommand({
            Bucket: bucket, Key: key, Body: Readable.from(toManifestPieces(entries())), ContentLength: length,
            ContentType: 'text/tab-separated-values; charset=utf-8', CacheControl: 'no-store',
          }))).then(() => undefined);
        } catch (error) {
          if (attempt >= STREAM_ATTEMPTS) throw error;
        }
      }
    },
    async put(path, body, headers) {
      const key = `${prefix}${path}`;
      const send = (payload: Uint8Array | Readable, length?: number) => client.send(new PutObjectCommand({
        Bucket: bucket, Key: key, Body: payload, ContentLength: length, ContentType: headers.contentType, CacheControl: headers.cacheControl,
      }));
      if (body instanceof Uint8Array) return call('uploading', key, () => send(body)).then(() => undefined);
      for (let attempt = 1; ; attempt++) {
        try {
          return await call('uploading', key, () => send(createReadStream(body.file), body.size)).then(() => undefined);
        } catch (error) {
          if (attempt >= STREAM_ATTEMPTS) throw error;
        }
      }
    },
    async remove(paths) {
      for (let start = 0; start < paths.length; start += DELETE_BATCH) {
        const batch = paths.slice(start, start + DELETE_BATCH);
        const answer = await call('deleting', `${prefix}${batch[0]}`, () => client.send(new DeleteObjectsCommand({
          Bucket: bucket, Delete: { Objects: batch.map((path) => ({ Key: `${prefix}${path}` })), Quiet: true },
        })));
        const failed = answer.Errors?.filter((error) => error.Code !== 'NoSuchKey') ?? [];
        if (failed.length > 0) throw new PublishError(`the store refused to delete ${failed.length} object(s), e.g. ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message ?? ''}`.trim());
      }
    },
  };
}

/** An object's body as a stream, or null when the store has no such object. */
async function readObject(client: S3Client, bucket: string, key: string): Promise<Readable | null> {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return answer.Body as Readable;
  } catch (error) {
    if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return null;
    throw error;
  }
}

async function readText(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** What went wrong, in the store's words where it gave any, and without credentials. */
function toPublishError(error: unknown, what: string, key: string | undefined, where: string): PublishError {
  if (error instanceof PublishError) return error;
  const on = key ? ` ${key}` : ` ${where}`;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    const code = error.name;
    const reason = code === 'NoSuchBucket' || (status === 404 && !key) ? `the bucket does not exist (${where})`
      : ['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'ExpiredToken'].includes(code) || status === 403
        ? `the store refused the credentials (${code}${status ? `, HTTP ${status}` : ''}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`
        : `the store answered ${status ? `HTTP ${status} ` : ''}${code}${error.message && error.message !== code && error.message !== 'UnknownError' ? `: ${error.message}` : ''}`;
    return new PublishError(`${what}${on}: ${reason}`, { key, status, code, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new PublishError(`${what}${on}: ${message}`, { key, cause: error });
}
