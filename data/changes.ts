import type { Change, ChangeType } from '../domain/schemas.ts';
import { detectChanges, type ServiceState } from './change-detect.ts';
import { cachedStatement, preparedOnce, type DB } from './db.ts';

/** How long the log keeps a change (DESIGN.md: 90 days). */
export const CHANGE_RETENTION_DAYS = 90;

const ID_WIDTH = 12;

/** A change as its writer gives it; the log adds the id. */
export interface NewChange {
  at: string;
  service_id: string;
  type: ChangeType;
  summary: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** What a reader asks of the log: changes after a cursor, optionally of one service and of some types. */
export interface ChangeQuery {
  after?: string | null;
  service?: string | null;
  types?: readonly ChangeType[];
  limit: number;
}

interface ChangeRow {
  seq: number;
  at: string;
  service_id: string;
  type: ChangeType;
  summary: string;
  before: string | null;
  after: string | null;
}

const statements = preparedOnce({
  insert: `INSERT INTO changes (at, service_id, type, summary, before, after) VALUES (?, ?, ?, ?, ?, ?)`,
  prune: `DELETE FROM changes WHERE at < ?`,
  state: `SELECT name, endpoint, live, price_usd, price_display, rails, chains, assets, facilitator, flags
    FROM services WHERE id = ?`,
  endpoints: `SELECT method, url FROM service_endpoints WHERE service_id = ? ORDER BY position`,
});

/** The id of the change stored at `seq`: zero-padded, so ids compared as strings keep the log's order. */
export const toChangeId = (seq: number): string => String(seq).padStart(ID_WIDTH, '0');

const toChange = (row: ChangeRow): Change => ({
  id: toChangeId(row.seq),
  at: row.at,
  service_id: row.service_id,
  type: row.type,
  summary: row.summary,
  before: row.before === null ? null : JSON.parse(row.before),
  after: row.after === null ? null : JSON.parse(row.after),
});

/**
 * Appends a change to the log. Call it inside the transaction that makes the change, so that neither is ever kept
 * without the other.
 * @example recordChange(db, { at, service_id: 'api-example-com', type: 'went_live', summary: 'Went live.', before: { live: false }, after: { live: true } })
 */
export function recordChange(db: DB, change: NewChange): Change {
  const before = change.before ?? null;
  const after = change.after ?? null;
  const { lastInsertRowid } = statements(db).insert.run(
    change.at, change.service_id, change.type, change.summary,
    before === null ? null : JSON.stringify(before), after === null ? null : JSON.stringify(after),
  );
  return { ...change, id: toChangeId(Number(lastInsertRowid)), before, after };
}

/**
 * A page of the log, oldest first, after the cursor `after` (a change id; none = from the oldest kept).
 * `next_after` is the last id on the page when more follow, else null.
 * @example listChanges(db, { after: '000000000100', types: ['went_dark'], limit: 100 })
 */
export function listChanges(db: DB, query: ChangeQuery): { changes: Change[]; next_after: string | null } {
  const where = ['seq > ?'];
  const params: unknown[] = [query.after ? Number(query.after) : 0];
  if (query.service) {
    where.push('service_id = ?');
    params.push(query.service);
  }
  if (query.types?.length) {
    where.push(`type IN (${query.types.map(() => '?').join(', ')})`);
    params.push(...query.types);
  }
  const sql = `SELECT seq, at, service_id, type, summary, before, after FROM changes WHERE ${where.join(' AND ')}
    ORDER BY seq LIMIT ?`;
  const rows = cachedStatement(db, sql).all(...params, query.limit + 1) as ChangeRow[];
  const more = rows.length > query.limit;
  const changes = rows.slice(0, query.limit).map(toChange);
  return { changes, next_after: more ? changes[changes.length - 1]!.id : null };
}

/** The newest `limit` changes (of one service, when given), newest first: what a feed or a listing page shows. */
export function recentChanges(db: DB, limit: number, service?: string): Change[] {
  const sql = `SELECT seq, at, service_id, type, summary, before, after FROM changes
    ${service ? 'WHERE service_id = ?' : ''} ORDER BY seq DESC LIMIT ?`;
  const rows = cachedStatement(db, sql).all(...(service ? [service] : []), limit) as ChangeRow[];
  return rows.map(toChange);
}

/** Drops changes older than the retention window; returns how many went. */
export function pruneChanges(db: DB, now: Date): number {
  const cutoff = new Date(now.getTime() - CHANGE_RETENTION_DAYS * 86_400_000).toISOString();
  return statements(db).prune.run(cutoff).changes;
}

interface StateRow {
  name: string; endpoint: string; live: number | null; price_usd: number | null; price_display: string | null;
  rails: string; chains: string; assets: string; facilitator: string | null; flags: string;
}

/**
 * What the change log watches of one stored service (data/change-detect.ts), or null when it is not stored; with its
 * listed endpoints when the caller's write may change them.
 */
export function readServiceState(db: DB, id: string, withEndpoints: boolean): ServiceState | null {
  const s = statements(db);
  const row = s.state.get(id) as StateRow | undefined;
  if (!row) return null;
  const state: ServiceState = {
    name: row.name, endpoint: row.endpoint, live: row.live === null ? null : row.live === 1,
    price: { usd: row.price_usd, display: row.price_display },
    rails: JSON.parse(row.rails), chains: JSON.parse(row.chains), assets: JSON.parse(row.assets),
    facilitator: row.facilitator, flags: JSON.parse(row.flags),
  };
  if (withEndpoints) {
    const rows = s.endpoints.all(id) as Array<{ method: string | null; url: string }>;
    state.endpoints = rows.map((e) => `${e.method ?? 'GET'} ${e.url}`);
  }
  return state;
}

/**
 * Records what changed of a service since `before` (read with readServiceState before the write), as of `at`. Call it
 * in the writer's transaction, after the write.
 * @example const before = readServiceState(db, id, true); upsertService(db, input, now); recordServiceChanges(db, id, before, now, true);
 */
export function recordServiceChanges(db: DB, id: string, before: ServiceState | null, at: string, withEndpoints: boolean): Change[] {
  const after = readServiceState(db, id, withEndpoints);
  if (!after) return [];
  return detectChanges(id, before, after, at).map((change) => recordChange(db, change));
}
