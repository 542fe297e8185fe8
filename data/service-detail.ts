import type { Service, ServiceDetail, Uptime } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';
import { digest } from './digest.ts';
import { listServiceEndpoints } from './endpoints.ts';
import { getOwnerView } from './owner-edits.ts';
import { listProbes } from './probe-read.ts';
import { getService, listSourceUrls } from './service-read.ts';
import { getUptimeFigures } from './uptime.ts';

/*
 * A service's detail answer (the service, where it is listed, its newest probes, its uptime, every listed endpoint
 * with its last check) is kept as JSON text
 * beside it and rewritten by every write that changes any of it (upsertService, recordProbes,
 * recordEndpointChecks), so the
 * detail route reads one row instead of assembling some 25. The uptime in it, and the service's 30-day figures the
 * list sorts by, are computed as of that write's time, in its transaction, by one function (data/uptime.ts).
 * This module imports readers only: no module it imports imports it back.
 */

const statements = preparedOnce({
  read: `SELECT body, digest FROM service_details WHERE service_id = ?`,
  nextRevision: `UPDATE detail_revision SET value = value + 1 RETURNING value`,
  write: `INSERT INTO service_details (service_id, body, digest, revision) VALUES (?, ?, ?, ?)
    ON CONFLICT (service_id) DO UPDATE SET body = excluded.body, digest = excluded.digest, revision = excluded.revision`,
  latestRevision: `SELECT value FROM detail_revision`,
  newest: `SELECT body FROM service_details ORDER BY revision DESC LIMIT ?`,
  // A deleted service's answer is gone too: its tombstone (migration 014) carries the revision of its going.
  changedSince: `SELECT service_id, revision FROM service_details WHERE revision > @after
    UNION ALL SELECT service_id, revision FROM detail_tombstones WHERE revision > @after ORDER BY revision LIMIT @limit`,
  figures: `UPDATE services SET uptime_30d = @ratio, checks_30d = @checks, median_latency_ms_30d = @median
    WHERE id = @id AND (uptime_30d IS NOT @ratio OR checks_30d IS NOT @checks OR median_latency_ms_30d IS NOT @median)`,
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
  // A service written before details were stored (or before migration 009) has none until its next write: assemble
  // it now, its uptime as of now.
  const service = getService(db, id);
  const body = service && renderServiceDetail(db, service, getUptimeFigures(db, id, new Date()).uptime);
  return body === null ? null : { body, digest: digest(body) };
}

/**
 * The bodies of the `count` detail answers written last, newest first.
 * @example listNewestDetailBodies(db, 4); // ['{"id":"api-example-com",...}', ...]
 */
export function listNewestDetailBodies(db: DB, count: number): string[] {
  return statements(db).newest.pluck().all(count) as string[];
}

const writesInProcess = new WeakMap<DB, number>();

/**
 * Sets the service's 30-day figures and re-renders and stores its detail answer, both as of `now` (the write's time:
 * the newest probe recorded, or the upsert's time); writers call it in the transaction that changed the service.
 * @example storeServiceDetail(db, 'api-example-com', probe.probed_at);
 */
export function storeServiceDetail(db: DB, id: string, now: string): void {
  const s = statements(db);
  const { uptime, median_latency_ms_30d } = getUptimeFigures(db, id, new Date(now));
  const month = uptime['30d'];
  s.figures.run({ id, ratio: month.ratio, checks: month.checks, median: median_latency_ms_30d });
  const service = getService(db, id);
  if (!service) return;
  const body = renderServiceDetail(db, service, uptime);
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
  return statements(db).changedSince.all({ after: revision, limit }) as Array<{ service_id: string; revision: number }>;
}

function renderServiceDetail(db: DB, service: Service, uptime: Uptime): string {
  const probes = listProbes(db, service.id);
  const endpoints = listServiceEndpoints(db, service.id);
  const detail: ServiceDetail = { ...service, source_urls: listSourceUrls(db, service.id), probes, uptime, endpoints,
    owner: getOwnerView(db, service.id),
  };
  return JSON.stringify(detail);
}
