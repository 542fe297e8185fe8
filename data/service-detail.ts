import type { ServiceDetail } from '../api/schemas.ts';
import { preparedOnce, type DB } from './db.ts';
import { digest } from './digest.ts';
import { listProbes } from './probes.ts';
import { getService, listSourceUrls } from './services.ts';

/*
 * A service's detail answer (the service, where it is listed, its newest probes) is kept as JSON text beside it
 * and rewritten by every write that changes any of it (upsertService, recordProbes), so the
 * detail route reads one row instead of assembling some 25.
 */

const statements = preparedOnce({
  read: `SELECT body, digest FROM service_details WHERE service_id = ?`,
  nextRevision: `UPDATE detail_revision SET value = value + 1 RETURNING value`,
  write: `INSERT INTO service_details (service_id, body, digest, revision) VALUES (?, ?, ?, ?)
    ON CONFLICT (service_id) DO UPDATE SET body = excluded.body, digest = excluded.digest, revision = excluded.revision`,
  latestRevision: `SELECT value FROM detail_revision`,
  changedSince: `SELECT service_id, revision FROM service_details WHERE revision > ? ORDER BY revision LIMIT ?`,
});

/** A detail answer as JSON text, with its digest (data/digest.ts). */
export interface StoredDetail {
  body: string;
  digest: string;
}

/**
 * The detail answer of a service, or null when there is no such service. `id` must be lower-cased.
 * @example const { body } = readServiceDetail(db, 'api-example-com')!; // '{"id":"api-example-com",...}'
 */
export function readServiceDetail(db: DB, id: string): StoredDetail | null {
  const stored = statements(db).read.get(id) as StoredDetail | undefined;
  if (stored) return stored;
  // A service written before details were stored has none until its next write: assemble it then.
  const body = renderServiceDetail(db, id);
  return body === null ? null : { body, digest: digest(body) };
}

const writesInProcess = new WeakMap<DB, number>();

/**
 * Re-renders and stores the detail answer of a service; writers call it after changing the service.
 * @example storeServiceDetail(db, 'api-example-com'); // in the transaction that changed the service
 */
export function storeServiceDetail(db: DB, id: string): void {
  const body = renderServiceDetail(db, id);
  if (body === null) return;
  const s = statements(db);
  s.write.run(id, body, digest(body), s.nextRevision.pluck().get());
  writesInProcess.set(db, countDetailWrites(db) + 1);
}

/**
 * How many detail rewrites this process made through this connection: a cache of answers compares it on every
 * read, since asking SQLite whether anything changed costs a few µs (data/detail-cache.ts asks that only every
 * few milliseconds, for other connections' commits).
 */
export function countDetailWrites(db: DB): number {
  return writesInProcess.get(db) ?? 0;
}

/** The revision of the newest detail rewrite (0 when none was ever written); revisions are never reused. */
export function getLatestDetailRevision(db: DB): number {
  return statements(db).latestRevision.pluck().get() as number;
}

/**
 * The first `limit` services whose detail answer was rewritten after `revision`, oldest rewrite first, with each
 * one's revision.
 * @example for (const { service_id } of listDetailsChangedSince(db, seen, 100)) forget(service_id);
 */
export function listDetailsChangedSince(db: DB, revision: number, limit: number): Array<{ service_id: string; revision: number }> {
  return statements(db).changedSince.all(revision, limit) as Array<{ service_id: string; revision: number }>;
}

function renderServiceDetail(db: DB, id: string): string | null {
  const service = getService(db, id);
  if (!service) return null;
  const detail: ServiceDetail = { ...service, source_urls: listSourceUrls(db, id), probes: listProbes(db, id) };
  return JSON.stringify(detail);
}
