import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3ServiceException, type S3Client,
} from '@aws-sdk/client-s3';
import { EMPTY_MANIFEST, MANIFEST_PATH, type Manifest } from './plan.ts';
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
  readManifest(): Promise<Manifest>;
  writeManifest(manifest: Manifest): Promise<void>;
  /** Uploads bytes, or a file on disk as a stream (`size` bytes; sent afresh on each attempt). */
  put(path: string, body: Uint8Array | LocalFile, headers: { contentType: string; cacheControl: string }): Promise<void>;
  /** Deletes these paths (1000 to a request); a path already gone is no failure. */
  remove(paths: readonly string[]): Promise<void>;
}

/** A file on disk to upload without holding it. */
export interface LocalFile {
  file: string;
  size: number;
}

const DELETE_BATCH = 1000;
/** Attempts at a file sent as a stream: the SDK cannot send a stream it has read again, so each attempt opens the file anew. */
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
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const manifest = JSON.parse(await answer.Body!.transformToString()) as Manifest;
        if (manifest.version !== 1 || typeof manifest.files !== 'object') throw new PublishError(`${where}${MANIFEST_PATH} is not a manifest this publish can read`);
        return manifest;
      } catch (error) {
        if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return EMPTY_MANIFEST;
        if (error instanceof PublishError) throw error;
        throw toPublishError(error, 'reading the manifest', key, where);
      }
    },
    writeManifest: (manifest) => {
      const key = `${prefix}${MANIFEST_PATH}`;
      return call('writing the manifest', key, () => client.send(new PutObjectCommand({
        Bucket: bucket, Key: key, Body: toManifestBytes(manifest), ContentType: 'application/json', CacheControl: 'no-store',
      }))).then(() => undefined);
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

/**
 * The manifest's JSON (what `JSON.stringify` writes) as bytes, written entry by entry into one buffer of its size:
 * at 400,000 files the manifest is some 40 MB, and a string of it, then its bytes, would hold it twice, and in the
 * heap. A buffer (not a stream) so that the SDK can send it again on a retry.
 */
export function toManifestBytes(manifest: Manifest): Buffer {
  const pieces = function* () {
    yield `{"version":${JSON.stringify(manifest.version)},"files":{`;
    let first = true;
    for (const path in manifest.files) {
      // Its two fields alone: an entry may be a file's own record (site/publish/publish.ts), which holds more.
      const { digest, size } = manifest.files[path]!;
      yield `${first ? '' : ','}${JSON.stringify(path)}:{"digest":${JSON.stringify(digest)},"size":${JSON.stringify(size)}}`;
      first = false;
    }
    yield '}}';
  };
  let size = 0;
  for (const piece of pieces()) size += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of pieces()) at += bytes.write(piece, at);
  return bytes;
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
