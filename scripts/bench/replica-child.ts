/**
 * One replica refresh in its own process, as server/replica.ts does it, so its peak memory is its own:
 * `replica-child.ts <target> <mirrorDir> <copyPath>` with the store's variables in the environment; the mirror of the
 * Litestream replica fetches what it lacks, Litestream restores a copy, the copy's generation is read and its derived
 * columns set. Prints one JSON line with the figures (the copy is left for the caller to measure and delete).
 */
import { statSync } from 'node:fs';
import { refreshMirror } from '../../api/replica/mirror.ts';
import { litestreamPath, restoreCopy } from '../../data/litestream.ts';
import { completePublicCopy, readCopyGeneration } from '../../data/public-copy.ts';
import { createS3Client, readTarget } from '../../site/publish/target.ts';

export interface ReplicaChildReport {
  bytes: number;
  objects: number;
  size: number;
  seconds: number;
  fetchSeconds: number;
  /** Setting the copy's derived columns (completePublicCopy). */
  deriveSeconds: number;
  peakRssBytes: number;
}

const [to, mirror, copy] = process.argv.slice(2);
if (!to || !mirror || !copy) {
  console.error('usage: replica-child.ts s3://BUCKET/PREFIX <mirrorDir> <copyPath>');
  process.exit(2);
}
const target = readTarget(to);
const started = performance.now();
const fetched = await refreshMirror(createS3Client(process.env), target.bucket, litestreamPath(target.prefix), mirror, Number.MAX_SAFE_INTEGER);
const fetchSeconds = (performance.now() - started) / 1000;
await restoreCopy(mirror, copy);
readCopyGeneration(copy);
const restored = performance.now();
completePublicCopy(copy);
const deriveSeconds = (performance.now() - restored) / 1000;
const report: ReplicaChildReport = {
  bytes: fetched.bytes,
  objects: fetched.fetched,
  size: statSync(copy).size,
  seconds: (performance.now() - started) / 1000,
  fetchSeconds,
  deriveSeconds,
  peakRssBytes: process.resourceUsage().maxRSS * 1024,
};
console.log(JSON.stringify(report));
