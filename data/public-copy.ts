import { existsSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrate, type DB } from './db.ts';
import { deriveServiceKeys } from './migrations/021-endpoint-keys.ts';
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
  // The texts a search of endpoints reads (migration 022), copied as endpoints_fts is: a copy has no triggers.
  endpoint_texts: ['search_rowid', 'service_rowid', 'text', 'words'],
  service_texts: ['rowid', 'text', 'words'],
};

/**
 * Listed columns a copy holds at their default until `completePublicCopy` derives them from the rest of the copy, as
 * the writer's triggers derive them: each endpoint row's copies of its service's liveness, latency, flags, 30-day
 * uptime and directory count, and of its own check (migration 021). A probe pass moves every probed service's uptime
 * and latency, so copied, they rewrote every endpoint row and its entries in the quality and latency indexes: a
 * third of what a replica fetched per pass. Deriving them costs a replica one UPDATE over the endpoint rows.
 */
export const DERIVED_COLUMNS: Readonly<Record<string, { columns: readonly string[]; derive: string }>> = {
  service_endpoints: { columns: ['live', 'latency_ms', 'service_flagged', 'service_uptime_30d', 'service_source_count'], derive: deriveServiceKeys },
};

/**
 * The page cache of each database a copy's connection reads or writes (main, an attached source, temp), in KiB. The
 * copy reads every row once, so a cache buys it little, and SQLite sizes its sorter (the `EXCEPT`s over 525,000
 * endpoint rows at 100,000 services, the index builds of `VACUUM INTO`) by main's cache: at the 16 MB default,
 * three caches and a sorter kept the publish's copy child above 250 MB. Pages beyond it are read again through the
 * operating system's cache.
 */
export const COPY_CACHE_KIB = 4096;

/** Gives each of these schemas of a connection the copy's page cache (COPY_CACHE_KIB). */
function limitCopyCaches(db: DB, schemas: readonly string[] = ['main', 'temp']): void {
  for (const schema of schemas) db.pragma(`${schema}.cache_size = -${COPY_CACHE_KIB}`);
}

/** The copy's own table: which publish wrote it. Only copies have it. */
export const COPY_META_TABLE = 'public_copy';

/**
 * Litestream adds two tables of its own to a file it replicates (`_litestream_seq`, `_litestream_lock`: a counter and
 * an empty lock table), so a copy restored from its replica has them; they hold no data of the index.
 */
export const LITESTREAM_TABLE_PREFIX = '_litestream_';

/** A copy a replica must not serve, with the reason in words. */
export class RefusedCopyError extends Error {}

/**
 * Writes the public copy of `db` to `path`: the schema the migrations make (so its `user_version` is theirs), cut to
 * the allow-list, filled from one read snapshot of `db`, stamped with `generation` (a number each publish makes
 * larger), its derived columns set, and compacted into one file.
 * @example writePublicCopy(db, '/tmp/index.db', Date.now());
 */
export function writePublicCopy(db: DB, path: string, generation: number): void {
  createPublicCopy(path);
  updatePublicCopy(db.name, path, generation);
  completePublicCopy(path);
  const written = new Database(path);
  try {
    written.pragma('journal_mode = DELETE');
    written.exec('VACUUM');
  } finally {
    written.close();
  }
}

/**
 * An empty public copy at `path` (any file there, with its WAL, is replaced): the schema the migrations make, cut to
 * the allow-list, in WAL mode (which Litestream needs), with its generation table.
 * @example createPublicCopy('data/public/index.db');
 */
export function createPublicCopy(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  const copy = new Database(path);
  try {
    migrate(copy);
    cutToAllowList(copy);
    copy.exec(`CREATE TABLE ${COPY_META_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL)`);
    copy.pragma('journal_mode = WAL');
  } finally {
    copy.close();
  }
}

/**
 * Whether the file at `path` is a public copy of exactly this code's schema and allow-list, so it can be updated in
 * place; a copy made before a migration or a change of the list is not, and is created again.
 * @example if (!isCurrentPublicCopy(path)) createPublicCopy(path);
 */
export function isCurrentPublicCopy(path: string): boolean {
  if (!existsSync(path)) return false;
  const copy = new Database(path, { readonly: true, fileMustExist: true });
  try {
    if (copy.pragma('user_version', { simple: true }) !== migrations.length) return false;
    if (copy.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'trigger'`).pluck().get() !== 0) return false;
    const expected: Record<string, readonly string[]> = { ...PUBLIC_TABLES, [COPY_META_TABLE]: ['id', 'generation'] };
    const tables = listOwnTables(copy).filter(({ name }) => !name.startsWith(LITESTREAM_TABLE_PREFIX));
    if (tables.length !== Object.keys(expected).length) return false;
    return tables.every(({ name }) => {
      const present = readColumns(copy, name);
      // `rowid` is listed for the tables that name it as a column, and for full-text tables, which do not.
      const allowed = expected[name]?.filter((column) => column !== 'rowid' || present.includes(column));
      return allowed !== undefined && present.length === allowed.length && allowed.every((column) => present.includes(column));
    });
  } catch {
    return false;
  } finally {
    copy.close();
  }
}

/**
 * Brings the public copy at `path` up to the database at `sourcePath` in one transaction, writing only what differs:
 * per listed table, the rows whose key is gone are deleted, the changed ones updated, the missing ones inserted
 * (planTableUpdate), all but the derived columns; then the stamp is set to `generation`, unless no row differed: a copy
 * whose rows did not change keeps its stamp, so it is the same file, and neither Litestream nor the upload of
 * `snapshots/index.db.gz` has anything new to send. Answers the copy's stamp. Only the pages holding changed rows and
 * index entries are written, so Litestream, which ships the pages a transaction wrote, ships a small share of the
 * file after a small change. The copy's own connection never checkpoints: Litestream, which holds the file while it
 * is written, does (a checkpoint behind its back would start a new Litestream generation, a whole snapshot for every
 * replica).
 * @example updatePublicCopy('data/index.db', 'data/public/index.db', Date.now());
 */
export function updatePublicCopy(sourcePath: string, path: string, generation: number): number {
  const copy = new Database(path, { fileMustExist: true });
  try {
    copy.pragma('wal_autocheckpoint = 0');
    // Rows are copied as they stand: a copy mirrors the writer's data, it does not check it again.
    copy.pragma('foreign_keys = OFF');
    copy.prepare('ATTACH DATABASE ? AS source').run(sourcePath);
    limitCopyCaches(copy, ['main', 'temp', 'source']);
    const plans = Object.entries(PUBLIC_TABLES).flatMap(([table, columns]) => planTableUpdate(copy, table, columns));
    const stamped = copy.transaction(() => {
      const written = plans.reduce((sum, { sql, writes }) => sum + (writes ? copy.prepare(sql).run().changes : (copy.exec(sql), 0)), 0);
      const held = copy.prepare(`SELECT generation FROM ${COPY_META_TABLE} WHERE id = 1`).pluck().get() as number | undefined;
      if (written === 0 && held !== undefined) return held;
      copy.prepare(`INSERT INTO ${COPY_META_TABLE} (id, generation) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET generation = excluded.generation`).run(generation);
      return generation;
    }).immediate();
    copy.exec('DETACH DATABASE source');
    return stamped;
  } finally {
    copy.close();
  }
}

/**
 * Sets the derived columns (DERIVED_COLUMNS) of the copy at `path` from the rest of it, in one transaction, so it
 * answers what the writer answers; a replica runs it on every copy before serving it. Running it again changes
 * nothing.
 * @example completePublicCopy('data/replica/index-3.db');
 */
export function completePublicCopy(path: string): void {
  const copy = new Database(path, { fileMustExist: true });
  try {
    limitCopyCaches(copy);
    copy.transaction(() => {
      for (const { derive } of Object.values(DERIVED_COLUMNS)) copy.exec(derive);
    }).immediate();
  } finally {
    copy.close();
  }
}

/**
 * Writes the public copy at `path` compacted into one file at `output` (`VACUUM INTO`), in rollback mode, for a
 * download of the whole copy, with its derived columns set and without Litestream's tables. Reads only: the copy is
 * not checkpointed.
 * @example exportPublicCopy('data/public/index.db', '/tmp/index.db');
 */
export function exportPublicCopy(path: string, output: string): void {
  rmSync(output, { force: true });
  const copy = new Database(path, { fileMustExist: true });
  try {
    copy.pragma('wal_autocheckpoint = 0');
    // VACUUM INTO gives the file it writes main's cache size.
    limitCopyCaches(copy);
    copy.prepare('VACUUM INTO ?').run(output);
  } finally {
    copy.close();
  }
  completePublicCopy(output);
  const exported = new Database(output);
  try {
    exported.pragma('journal_mode = DELETE');
    // Litestream's counter moves at every publish; zeroing the pages its tables free keeps an unchanged copy's export
    // the same bytes, so it is not uploaded again.
    exported.pragma('secure_delete = ON');
    for (const name of exported.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?`).pluck().all(`${LITESTREAM_TABLE_PREFIX}%`) as string[]) exported.exec(`DROP TABLE ${name}`);
  } finally {
    exported.close();
  }
}

/**
 * The statements that make `table` in the copy hold the source's listed columns, writing only what differs: rows are
 * told apart by their key (the primary key of a table without rowid, else the rowid, which the source keeps for a
 * row's life), and a row counts as changed when any listed column differs (`EXCEPT` compares NULLs as equal).
 * A changed row is updated in place, one group of columns at a time (the columns read by the same indexes), and a
 * group only where it differs: SQLite rewrites a row's entry in every index over a column an UPDATE sets, even to
 * the same value, so a fast-moving column set alone leaves the other indexes' pages as they were. A row whose key is
 * gone, or whose unique columns differ (an update could meet a value another row still holds), is deleted and
 * inserted again. Derived columns (DERIVED_COLUMNS) are not copied: they keep their default.
 */
function planTableUpdate(copy: DB, table: string, columns: readonly string[]): Array<{ sql: string; writes: boolean }> {
  const keys = readKey(copy, table);
  const derived = DERIVED_COLUMNS[table]?.columns ?? [];
  const values = columns.filter((column) => column !== 'rowid' && !keys.includes(column) && !derived.includes(column));
  const unique = readUniqueColumns(copy, table).filter((column) => values.includes(column));
  const keyNames = keys.map((_, index) => `k${index}`);
  const select = (listed: readonly string[]) => [...keys.map((key, index) => `${key} AS ${keyNames[index]}`), ...listed].join(', ');
  const target = keys.length === 1 ? keys[0]! : `(${keys.join(', ')})`;
  const statements = [{ sql: `DELETE FROM main.${table} WHERE ${target} IN (SELECT ${keyNames.join(', ')} FROM (SELECT ${select(unique)} FROM main.${table} EXCEPT SELECT ${select(unique)} FROM source.${table}))`, writes: true }];
  if (values.length > 0) {
    const matched = keys.map((key, index) => `main.${table}.${key} = changed.${keyNames[index]}`).join(' AND ');
    statements.push({ sql: `CREATE TEMP TABLE changed AS SELECT ${select(values)} FROM source.${table} EXCEPT SELECT ${select(values)} FROM main.${table}`, writes: false });
    for (const group of groupByIndexes(copy, table, values)) {
      statements.push({ sql: `UPDATE main.${table} SET (${group.join(', ')}) = (${group.map((column) => `changed.${column}`).join(', ')}) FROM temp.changed
        WHERE ${matched} AND (${group.map((column) => `main.${table}.${column} IS NOT changed.${column}`).join(' OR ')})`, writes: true });
    }
    statements.push({ sql: 'DROP TABLE temp.changed', writes: false });
  }
  statements.push({ sql: `INSERT INTO main.${table} (${[...keys, ...values].join(', ')}) SELECT ${select(values)} FROM source.${table} EXCEPT SELECT ${select(values)} FROM main.${table}`, writes: true });
  return statements;
}

/** The columns of `table` that some unique index (its primary key aside) covers. */
function readUniqueColumns(copy: DB, table: string): string[] {
  const indexes = copy.prepare(`SELECT name FROM pragma_index_list(?) WHERE "unique" = 1 AND origin <> 'pk'`).pluck().all(table) as string[];
  return [...new Set(indexes.flatMap((index) => readIndexColumns(copy, index)))];
}

/** `columns` in groups of those the same indexes read (the columns no index reads make one group). */
function groupByIndexes(copy: DB, table: string, columns: readonly string[]): string[][] {
  const indexes = copy.prepare('SELECT name FROM pragma_index_list(?)').pluck().all(table) as string[];
  const readers = new Map(indexes.map((index) => [index, readIndexColumns(copy, index)]));
  const groups = new Map<string, string[]>();
  for (const column of columns) {
    const by = indexes.filter((index) => readers.get(index)!.includes(column)).join(' ');
    groups.set(by, [...(groups.get(by) ?? []), column]);
  }
  return [...groups.values()];
}

/** The columns an index reads: its key columns, and every column its expressions or WHERE clause name. */
function readIndexColumns(copy: DB, index: string): string[] {
  const named = copy.prepare('SELECT name FROM pragma_index_info(?) WHERE name IS NOT NULL').pluck().all(index) as string[];
  const sql = copy.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).pluck().get(index) as string | null | undefined;
  if (!sql) return named;
  const table = copy.prepare(`SELECT tbl_name FROM sqlite_master WHERE name = ?`).pluck().get(index) as string;
  const body = sql.slice(sql.indexOf('('));
  const mentioned = readColumns(copy, table).filter((column) => new RegExp(`\\b${column}\\b`).test(body));
  return [...new Set([...named, ...mentioned])];
}

/** The columns that tell a table's rows apart: its primary key when it has no rowid, else the rowid. */
function readKey(copy: DB, table: string): string[] {
  const withoutRowid = (copy.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck().get(table) as string).trim().endsWith('WITHOUT ROWID');
  if (!withoutRowid) return ['rowid'];
  const info = copy.prepare('SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').all(table) as Array<{ name: string }>;
  return info.map(({ name }) => name);
}

/** Drops every table, column and trigger the allow-list does not name (an allowed full-text table keeps its own
 * tables). Triggers go because every listed table is copied as the writer has it, tallies and search index
 * included: a trigger would write those rows a second time. */
function cutToAllowList(copy: DB): void {
  for (const name of copy.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger'`).pluck().all() as string[]) copy.exec(`DROP TRIGGER ${name}`);
  for (const { name } of listOwnTables(copy)) {
    const allowed = PUBLIC_TABLES[name];
    if (!allowed) {
      copy.exec(`DROP TABLE ${name}`);
      continue;
    }
    for (const column of readColumns(copy, name)) if (!allowed.includes(column)) copy.exec(`ALTER TABLE ${name} DROP COLUMN ${column}`);
  }
}

/** The tables of a database but SQLite's own and those a full-text table keeps for itself. */
function listOwnTables(db: DB): Array<{ name: string }> {
  const tables = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`).all() as Array<{ name: string; sql: string }>;
  const virtual = tables.filter((t) => t.sql.startsWith('CREATE VIRTUAL TABLE')).map((t) => t.name);
  return tables.filter(({ name }) => !virtual.some((owner) => name.startsWith(`${owner}_`)));
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
