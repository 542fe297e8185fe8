/**
 * The benchmark database: synthetic services written through `data/` (upsertServices, recordProbes), cached in
 * the temp directory under a key of the generator version and the schema, so later runs in the same boot skip
 * the fill while a changed migration still gets a fresh database.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../data/db.ts';
import { migrations } from '../../data/migrations/index.ts';
import { recordProbes } from '../../data/probes.ts';
import { upsertServices } from '../../data/services.ts';
import { PROBES_PER_SERVICE, syntheticProbes, syntheticService } from './synthetic.ts';

/** Bump when the generator changes, so a stale cached database is not reused. */
const DATA_VERSION = 3;
const CACHE_DIR = join(tmpdir(), 'psi-bench');
const BATCH = 5_000;
const FILLED_AT = '2026-10-01T00:00:00.000Z';

export interface BenchDatabase {
  path: string;
  services: number;
  endpoints: number;
  probes: number;
  /** Seconds the fill took (when the file was cached: the fill that made it). */
  fillSeconds: number;
  cached: boolean;
}

/**
 * The path of a database holding `count` synthetic services with their probes, filling it when not cached.
 * @example const { path } = prepareDatabase(100_000);
 */
export function prepareDatabase(count: number): BenchDatabase {
  const key = `v${DATA_VERSION}-${createHash('sha1').update(migrations.map((m) => m.up).join('\n')).digest('hex').slice(0, 12)}`;
  const path = join(CACHE_DIR, `services-${count}-${key}.db`);
  const summaryPath = `${path}.json`;
  if (existsSync(path) && existsSync(summaryPath)) {
    // The path is this directory's, not the summary's: a cache copied from another temp directory names that one.
    return { ...(JSON.parse(readFileSync(summaryPath, 'utf8')) as Omit<BenchDatabase, 'cached'>), path, cached: true };
  }

  mkdirSync(CACHE_DIR, { recursive: true });
  // Each database is hundreds of MB: drop those of older generators or schemas, and an unfinished fill of this one.
  for (const file of readdirSync(CACHE_DIR)) {
    if (!file.includes(key) || file.startsWith(`services-${count}-`)) {
      rmSync(join(CACHE_DIR, file), { force: true });
    }
  }
  const partial = `${path}.partial`;
  const started = performance.now();
  const db = openDatabase(partial);
  let endpoints = 0;
  for (let first = 0; first < count; first += BATCH) {
    const indexes = Array.from({ length: Math.min(BATCH, count - first) }, (_, k) => first + k);
    const services = indexes.map(syntheticService);
    upsertServices(db, services, FILLED_AT);
    endpoints += services.reduce((sum, service) => sum + service.endpoints.length, 0);
    // Newest first: the older probes then leave liveness alone, which halves what recording a probe costs.
    recordProbes(db, services.flatMap((service, k) => syntheticProbes(indexes[k]!, service).reverse()));
  }
  db.close();
  renameSync(partial, path);
  const summary = { path, services: count, endpoints, probes: count * PROBES_PER_SERVICE, fillSeconds: (performance.now() - started) / 1000 };
  writeFileSync(summaryPath, JSON.stringify(summary));
  return { ...summary, cached: false };
}
