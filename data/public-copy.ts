import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrate, type DB } from './db.ts';
import { migrations } from './migrations/index.ts';

/**
 * The database copy published for read replicas (`snapshots/index.db.gz`) holds public data only: it is written
 * from this allow-list of tables and columns, never from the whole file, so a secret added to the schema later stays
 * out of it until someone lists it here. Every read a replica answers (services, detail, endpoints, changes, stats,
 * status, feeds, badges, pages) reads only these. Left out on purpose: webhooks and their deliveries (secrets,
 * receivers, client addresses), claims (tokens, client addresses), owner keys' digests and the claim they came from,
 * submissions (contacts, idempotency keys), purchases, and crawl runs' error text and process ids.
 * Listed in copy order: a table whose triggers feed another comes before it, so the later copy replaces what the
 * triggers wrote.
 */
export const PUBLIC_TABLES: Readonly<Record<string, readonly string[]>> = {
  services: ['rowid', 'id', 'name', 'category', 'description', 'endpoint', 'facilitator', 'price_usd', 'price_display', 'rails', 'chains',
    'assets', 'sources', 'dual_rail', 'live', 'live_rank', 'last_seen_live', 'last_probe_at', 'first_indexed', 'updated_at', 'uptime_30d',
    'checks_30d', 'median_latency_ms_30d', 'flags', 'owner_verified', 'reason', 'unanswered_since', 'min_price_usd', 'max_price_usd', 'endpoint_count'],
  service_endpoints: ['service_id', 'position', 'url', 'method', 'description', 'price_usd', 'price_display', 'rails', 'chains', 'assets',
    'example_body', 'sources', 'id', 'route_template', 'docs_url', 'tags', 'listed_offers', 'input', 'output', 'min_usd', 'search_rowid',
    'live', 'latency_ms', 'service_flagged', 'service_uptime_30d', 'service_source_count', 'terms'],
  endpoint_challenges: ['endpoint_id', 'service_id', 'seen_at', 'offers', 'x402_version', 'accepts'],
  origin_checks: ['service_id', 'checked_at', 'found'],
  service_sources: ['service_id', 'source', 'url'],
  service_facets: ['facet', 'live_rank', 'service_id', 'dual_rail'],
  probes: ['id', 'service_id', 'probed_at', 'ok', 'status_code', 'method', 'latency_ms', 'reason', 'detected_rails'],
  probe_days: ['service_id', 'day', 'checks', 'challenges', 'latency_ms_median'],
  endpoint_checks: ['service_id', 'method', 'url', 'checked_at', 'ok', 'status_code', 'latency_ms', 'reason'],
  wildcard_checks: ['service_id', 'checked_at', 'url', 'status_code', 'same_402'],
  changes: ['seq', 'at', 'service_id', 'type', 'summary', 'before', 'after'],
  service_details: ['service_id', 'body', 'digest', 'revision'],
  detail_revision: ['id', 'value'],
  detail_tombstones: ['service_id', 'revision'],
  // When an owner verified (the detail's `owner.verified_at`); never the key's digest or the claim behind it.
  owner_keys: ['service_id', 'verified_at'],
  owner_edits: ['service_id', 'name', 'description', 'category', 'main_endpoint', 'docs_url', 'updated_at'],
  delisted_services: ['service_id', 'reason', 'by', 'delisted_at', 'service', 'first_indexed'],
  crawl_runs: ['id', 'kind', 'started_at', 'finished_at', 'status', 'counts'],
  service_tallies: ['id', 'total', 'live', 'probed', 'dual_rail', 'last_probe_at'],
  facet_tallies: ['facet', 'size', 'live'],
  endpoint_tallies: ['term', 'total', 'live'],
  endpoint_price_tallies: ['min_usd', 'total', 'live'],
  asset_symbols: ['key', 'symbol'],
  facilitators: ['url', 'seen_in', 'first_seen', 'checked_at', 'live', 'error', 'kinds', 'extensions'],
  services_fts: ['rowid', 'name', 'category', 'description', 'endpoints'],
  endpoints_fts: ['rowid', 'text'],
};

/** The copy's own table: which publish wrote it. Only copies have it. */
export const COPY_META_TABLE = 'public_copy';

/** A copy a replica must not serve, with the reason in words. */
export class RefusedCopyError extends Error {}

/**
 * Writes the public copy of `db` to `path`: the schema the migrations make (so its `user_version` is theirs), cut to
 * the allow-list, filled from one read snapshot of `db`, stamped with `generation` (a number each publish makes
 * larger), and compacted into one file.
 * @example writePublicCopy(db, '/tmp/index.db', Date.now());
 */
export function writePublicCopy(db: DB, path: string, generation: number): void {
  rmSync(path, { force: true });
  const copy = new Database(path);
  try {
    migrate(copy);
    cutToAllowList(copy);
    copy.exec(`CREATE TABLE ${COPY_META_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL)`);
    copy.prepare(`INSERT INTO ${COPY_META_TABLE} (id, generation) VALUES (1, ?)`).run(generation);
  } finally {
    copy.close();
  }
  // Rows are copied as they stand: a copy mirrors the writer's data, it does not check it again.
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  db.prepare('ATTACH DATABASE ? AS public_copy_target').run(path);
  try {
    db.transaction(() => {
      for (const [table, columns] of Object.entries(PUBLIC_TABLES)) {
        const list = columns.join(', ');
        db.exec(`DELETE FROM public_copy_target.${table}; INSERT INTO public_copy_target.${table} (${list}) SELECT ${list} FROM main.${table}`);
      }
    })();
  } finally {
    db.exec('DETACH DATABASE public_copy_target');
    db.pragma(`foreign_keys = ${foreignKeys}`);
  }
  const written = new Database(path);
  try {
    written.exec('VACUUM');
  } finally {
    written.close();
  }
}

/** Drops every table and column the allow-list does not name (an allowed full-text table keeps its own tables). */
function cutToAllowList(copy: DB): void {
  const tables = copy.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`).all() as Array<{ name: string; sql: string }>;
  const virtual = tables.filter((t) => t.sql.startsWith('CREATE VIRTUAL TABLE')).map((t) => t.name);
  for (const { name } of tables) {
    if (virtual.some((owner) => name.startsWith(`${owner}_`))) continue;
    const allowed = PUBLIC_TABLES[name];
    if (!allowed) {
      copy.exec(`DROP TABLE ${name}`);
      continue;
    }
    for (const column of readColumns(copy, name)) if (!allowed.includes(column)) copy.exec(`ALTER TABLE ${name} DROP COLUMN ${column}`);
  }
}

const readColumns = (db: DB, table: string) => (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]);

/**
 * The generation of the public copy at `path`, after checking that it is one a replica can serve: a SQLite file of
 * this code's schema version, with every allow-listed table and column and its stamp. Throws RefusedCopyError
 * naming what is wrong; opens the file read-only, so a refused file is left as it came.
 * @example const generation = readCopyGeneration('data/replica/index-2.db');
 */
export function readCopyGeneration(path: string): number {
  let copy: DB;
  try {
    copy = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new RefusedCopyError(`not a SQLite database (${(error as Error).message})`);
  }
  try {
    const version = copy.pragma('user_version', { simple: true }) as number;
    if (version !== migrations.length) throw new RefusedCopyError(`schema version ${version}, this server reads ${migrations.length}`);
    for (const [table, columns] of Object.entries({ ...PUBLIC_TABLES, [COPY_META_TABLE]: ['generation'] })) {
      const present = readColumns(copy, table);
      const missing = columns.filter((column) => column !== 'rowid' && !present.includes(column));
      if (present.length === 0) throw new RefusedCopyError(`no table ${table}`);
      if (missing.length > 0) throw new RefusedCopyError(`table ${table} lacks ${missing.join(', ')}`);
    }
    const generation = copy.prepare(`SELECT generation FROM ${COPY_META_TABLE} WHERE id = 1`).pluck().get() as number | undefined;
    if (typeof generation !== 'number') throw new RefusedCopyError('no generation stamp');
    return generation;
  } catch (error) {
    if (error instanceof RefusedCopyError) throw error;
    throw new RefusedCopyError(`unreadable (${(error as Error).message})`);
  } finally {
    copy.close();
  }
}
