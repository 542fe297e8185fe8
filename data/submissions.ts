import { randomBytes } from 'node:crypto';
import type { Submission } from '../api/schemas.ts';
import { preparedOnce, type DB } from './db.ts';

/** A repeated submission of the same endpoint within this window is deduplicated. */
export const SUBMISSION_DEDUP_MS = 24 * 60 * 60 * 1000;

export interface SubmissionInput {
  endpoint: string;
  name: string | null;
  contact: string | null;
  idempotencyKey: string | null;
}

export interface SubmitOutcome {
  deduplicated: boolean;
  submission: Submission;
}

interface SubmissionRow extends Submission {
  endpoint_key: string;
}

const PUBLIC_COLUMNS = 'id, endpoint, name, status, reason, attempts, service_id, created_at, updated_at';

const statements = preparedOnce({
  byKey: `SELECT ${PUBLIC_COLUMNS} FROM submissions WHERE idempotency_key = ?`,
  recentByEndpoint: `SELECT ${PUBLIC_COLUMNS} FROM submissions WHERE endpoint_key = ? AND created_at >= ?
    ORDER BY created_at LIMIT 1`,
  insert: `INSERT INTO submissions (id, endpoint, endpoint_key, name, contact, idempotency_key, status,
      created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?)
    RETURNING ${PUBLIC_COLUMNS}`,
  byId: `SELECT ${PUBLIC_COLUMNS} FROM submissions WHERE id = ?`,
});

/**
 * Queues a submission, or echoes the earlier one when the same `Idempotency-Key` was used or the same
 * endpoint (normalized) was submitted within 24 hours. Atomic: concurrent identical submits queue one record.
 * @example submitService(db, { endpoint: 'https://api.example.com/x', name: null, contact: null, idempotencyKey: null }, new Date());
 */
export function submitService(db: DB, input: SubmissionInput, now: Date): SubmitOutcome {
  const s = statements(db);
  const endpointKey = toEndpointKey(input.endpoint);
  return db.transaction((): SubmitOutcome => {
    const earlier =
      (input.idempotencyKey ? (s.byKey.get(input.idempotencyKey) as SubmissionRow | undefined) : undefined) ??
      (s.recentByEndpoint.get(endpointKey, new Date(now.getTime() - SUBMISSION_DEDUP_MS).toISOString()) as
        | SubmissionRow
        | undefined);
    if (earlier) return { deduplicated: true, submission: earlier };
    const at = now.toISOString();
    const submission = s.insert.get(newSubmissionId(), input.endpoint, endpointKey, input.name, input.contact,
      input.idempotencyKey, at, at) as Submission;
    return { deduplicated: false, submission };
  }).immediate();
}

/** One submission as its owner may see it (never the contact), or null. */
export function getSubmission(db: DB, id: string): Submission | null {
  return (statements(db).byId.get(id) as Submission | undefined) ?? null;
}

/**
 * The dedupe key of an endpoint: scheme and host lower-cased, default port and fragment dropped,
 * a trailing slash of the path dropped, query kept as given.
 * @example toEndpointKey('HTTPS://API.example.com:443/x/#a') // 'https://api.example.com/x'
 */
export function toEndpointKey(endpoint: string): string {
  const url = new URL(endpoint);
  url.hash = '';
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : '';
  return `${url.protocol}//${url.host}${path}${url.search}`;
}

function newSubmissionId(): string {
  return `sub_${randomBytes(12).toString('base64url')}`;
}
