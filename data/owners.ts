import type { ChangeType } from '../domain/schemas.ts';
import { recordChange } from './changes.ts';
import { preparedOnce, type DB } from './db.ts';
import { getOwnerEdits, OWNER_FIELDS, type OwnerEdits, type OwnerField } from './owner-edits.ts';
import { storeServiceDetail } from './service-detail.ts';
import { getService } from './service-read.ts';
import { getServiceInput, upsertService } from './services.ts';
import { markSubmissionListed } from './submissions.ts';
import type { ServiceInput } from './types.ts';

/*
 * What owners and operators do to a service (DESIGN.md "Owners and operators"): edit it, delist it, relist it. Each
 * action is written with its change (data/changes.ts) in one transaction.
 */

/** Who took a service out of the index. */
export type DelistedBy = 'owner' | 'operator';

/** A delisted service as an operator or the detail route sees it. */
export interface Delisting {
  service_id: string;
  name: string;
  reason: string | null;
  by: DelistedBy;
  delisted_at: string;
}

const statements = preparedOnce({
  saveEdits: `INSERT INTO owner_edits (service_id, name, description, category, main_endpoint, docs_url, updated_at)
    VALUES (@service_id, @name, @description, @category, @main_endpoint, @docs_url, @now)
    ON CONFLICT (service_id) DO UPDATE SET name = excluded.name, description = excluded.description,
      category = excluded.category, main_endpoint = excluded.main_endpoint, docs_url = excluded.docs_url,
      updated_at = excluded.updated_at`,
  rowid: `SELECT rowid, first_indexed, owner_verified FROM services WHERE id = ?`,
  deleteSearch: `DELETE FROM services_fts WHERE rowid = ?`,
  deleteService: `DELETE FROM services WHERE id = ?`,
  archive: `INSERT INTO delisted_services (service_id, reason, by, delisted_at, service, first_indexed)
    VALUES (?, ?, ?, ?, ?, ?)`,
  archived: `SELECT service_id, reason, by, delisted_at, service, first_indexed FROM delisted_services WHERE service_id = ?`,
  unarchive: `DELETE FROM delisted_services WHERE service_id = ?`,
  restore: `UPDATE services SET first_indexed = ?, owner_verified = (SELECT count(*) > 0 FROM owner_keys WHERE service_id = ?)
    WHERE id = ?`,
});

/**
 * Sets what the owner gives (a field given as null goes back to the directories' value at the next crawl), rewrites
 * the service with it, and records an `edited` change naming the fields that moved. Answers the fields that changed
 * (none: nothing was written).
 * @example editService(db, 'api-example-com', { name: 'Example' }, now)
 */
export function editService(db: DB, id: string, given: Partial<OwnerEdits>, now: string): OwnerField[] {
  return db.transaction((): OwnerField[] => {
    const held = getOwnerEdits(db, id) ?? emptyEdits();
    const next = { ...held, ...given };
    const moved = OWNER_FIELDS.filter((field) => next[field] !== held[field]);
    const input = getServiceInput(db, id);
    if (moved.length === 0 || !input) return [];
    statements(db).saveEdits.run({ service_id: id, ...next, now });
    upsertService(db, input, now);
    const before = Object.fromEntries(moved.map((field) => [field, held[field]]));
    const after = Object.fromEntries(moved.map((field) => [field, next[field]]));
    recordChange(db, { at: now, service_id: id, type: 'edited', summary: `Its owner edited ${moved.join(', ')}.`, before, after });
    return moved;
  }).immediate();
}

/**
 * Takes a service out of the index: its row goes (and with it its listings, facets, tallies, probes and detail), what
 * it was is kept for a relist, and discovery leaves it out until then. False when there is no such listed service.
 * @example delistService(db, 'api-example-com', { reason: 'Retired', by: 'owner', now })
 */
export function delistService(db: DB, id: string, options: { reason: string | null; by: DelistedBy; now: string }): boolean {
  return db.transaction((): boolean => {
    const s = statements(db);
    const input = getServiceInput(db, id);
    const row = s.rowid.get(id) as { rowid: number; first_indexed: string } | undefined;
    if (!input || !row) return false;
    s.archive.run(id, options.reason, options.by, options.now, JSON.stringify(input), row.first_indexed);
    s.deleteSearch.run(row.rowid);
    s.deleteService.run(id);
    const who = options.by === 'owner' ? 'Its owner' : 'An operator';
    record(db, id, 'delisted', `${who} delisted it${options.reason ? `: ${options.reason}` : ''}.`, options.now,
      { listed: true }, { listed: false, reason: options.reason, by: options.by });
    return true;
  }).immediate();
}

/**
 * Brings a delisted service back as it was listed (its first indexing kept; its checks start afresh) and lets
 * discovery list it again. False when it is not delisted.
 * @example relistService(db, 'api-example-com', { by: 'operator', now })
 */
export function relistService(db: DB, id: string, options: { by: DelistedBy; now: string }): boolean {
  return db.transaction((): boolean => {
    const s = statements(db);
    const archived = s.archived.get(id) as { service: string; first_indexed: string } | undefined;
    if (!archived) return false;
    s.unarchive.run(id);
    upsertService(db, JSON.parse(archived.service) as ServiceInput, options.now);
    s.restore.run(archived.first_indexed, id, id);
    storeServiceDetail(db, id, options.now);
    const who = options.by === 'owner' ? 'Its owner' : 'An operator';
    record(db, id, 'relisted', `${who} relisted it.`, options.now, { listed: false }, { listed: true, by: options.by });
    return true;
  }).immediate();
}

/**
 * An operator lists a submitted service without waiting for a crawl to find its challenge: the service is written,
 * the submission marked listed, and a `listed` change recorded. False when the service is delisted (relist it first).
 * @example approveSubmission(db, 'sub_x', serviceFromSubmission, now)
 */
export function approveSubmission(db: DB, submissionId: string, service: ServiceInput, now: string): boolean {
  return db.transaction((): boolean => {
    if (getDelisting(db, service.id)) return false;
    const known = isListed(db, service.id);
    upsertService(db, service, now);
    markSubmissionListed(db, submissionId, service.id, now);
    if (!known) {
      record(db, service.id, 'listed', 'An operator listed it from a submission.', now, { listed: false }, { listed: true, submission: submissionId });
    }
    return true;
  }).immediate();
}

/** The delisting of a service, or null when it is listed or unknown. */
export function getDelisting(db: DB, id: string): Delisting | null {
  const row = statements(db).archived.get(id) as (Omit<Delisting, 'name'> & { service: string }) | undefined;
  return row ? toDelisting(row) : null;
}

/** Whether the service is listed now (delisted and unknown ones are not). */
export function isListed(db: DB, id: string): boolean {
  return getService(db, id) !== null;
}

function toDelisting({ service, ...row }: Omit<Delisting, 'name'> & { service: string }): Delisting {
  return { ...row, name: (JSON.parse(service) as ServiceInput).name };
}

function emptyEdits(): OwnerEdits {
  return { name: null, description: null, category: null, main_endpoint: null, docs_url: null };
}

function record(db: DB, id: string, type: ChangeType, summary: string, at: string, before: Record<string, unknown>, after: Record<string, unknown>): void {
  recordChange(db, { at, service_id: id, type, summary, before, after });
}
