import { randomBytes } from 'node:crypto';
import type { Submission } from '../domain/schemas.ts';
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
  byKey: `SELECT ${PUBLIC_COLUMNS} FROM submissions
    WHERE id = (SELECT submission_id FROM submission_keys WHERE idempotency_key = ?)`,
  rememberKey: `INSERT INTO submission_keys (idempotency_key, submission_id) VALUES (?, ?)`,
  recentByEndpoint: `SELECT ${PUBLIC_COLUMNS} FROM submissions WHERE endpoint_key = ? AND created_at >= ?
    ORDER BY created_at LIMIT 1`,
  insert: `INSERT INTO submissions (id, endpoint, endpoint_key, name, contact, status, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)
    RETURNING ${PUBLIC_COLUMNS}`,
  byId: `SELECT ${PUBLIC_COLUMNS} FROM submissions WHERE id = ?`,
});

/**
 * Queues a submission, or echoes the earlier one when the same `Idempotency-Key` was used or the same
 * endpoint (normalized) was submitted within 24 hours. A new key is remembered with the submission it was
 * answered with, for good. Atomic: concurrent identical submits queue one record.
 * @example submitService(db, { endpoint: 'https://api.example.com/x', name: null, contact: null, idempotencyKey: null }, new Date());
 */
export function submitService(db: DB, input: SubmissionInput, now: Date): SubmitOutcome {
  const s = statements(db);
  const key = input.idempotencyKey;
  return db.transaction((): SubmitOutcome => {
    const byKey = key ? (s.byKey.get(key) as SubmissionRow | undefined) : undefined;
    if (byKey) return { deduplicated: true, submission: byKey };
    const outcome = submitEndpoint(db, input, now);
    if (key) s.rememberKey.run(key, outcome.submission.id);
    return outcome;
  }).immediate();
}

/**
 * The submission an identical submit would answer, without writing: the one made with this `Idempotency-Key`, else
 * one of the same endpoint within 24 hours; null when a new one would be queued. Lets the submit route answer a
 * repeat before it resolves anything.
 * @example findEarlierSubmission(db, { endpoint, idempotencyKey: 'k1' }, new Date())?.submission.id
 */
export function findEarlierSubmission(db: DB, input: Pick<SubmissionInput, 'endpoint' | 'idempotencyKey'>, now: Date): Submission | null {
  const s = statements(db);
  const byKey = input.idempotencyKey ? (s.byKey.get(input.idempotencyKey) as Submission | undefined) : undefined;
  if (byKey) return byKey;
  const since = new Date(now.getTime() - SUBMISSION_DEDUP_MS).toISOString();
  return (s.recentByEndpoint.get(toEndpointKey(input.endpoint), since) as Submission | undefined) ?? null;
}

/** The earlier submission of the same endpoint within 24 hours, or a new queued one. */
function submitEndpoint(db: DB, input: SubmissionInput, now: Date): SubmitOutcome {
  const s = statements(db);
  const endpointKey = toEndpointKey(input.endpoint);
  const since = new Date(now.getTime() - SUBMISSION_DEDUP_MS).toISOString();
  const earlier = s.recentByEndpoint.get(endpointKey, since) as SubmissionRow | undefined;
  if (earlier) return { deduplicated: true, submission: earlier };
  const at = now.toISOString();
  const submission = s.insert.get(newSubmissionId(), input.endpoint, endpointKey, input.name, input.contact, at, at);
  return { deduplicated: false, submission: submission as Submission };
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

/** After this many failed crawls, spanning at least a day, a submission is rejected. */
export const SUBMISSION_MAX_FAILURES = 3;

/** A queued submission as the crawler sees it. */
export interface QueuedSubmission {
  id: string;
  endpoint: string;
  name: string | null;
  attempts: number;
  first_failed_at: string | null;
}

const crawlStatements = preparedOnce({
  queued: `SELECT id, endpoint, name, attempts, first_failed_at FROM submissions WHERE status = 'queued' ORDER BY created_at`,
  listed: `UPDATE submissions SET status = 'listed', service_id = ?, reason = NULL, attempts = attempts + 1, updated_at = ?
    WHERE id = ?`,
  failed: `UPDATE submissions SET attempts = attempts + 1, reason = @reason, updated_at = @now,
      first_failed_at = coalesce(first_failed_at, @now),
      status = CASE WHEN attempts + 1 >= @max AND julianday(@now) - julianday(coalesce(first_failed_at, @now)) >= 1
        THEN 'rejected' ELSE status END
    WHERE id = @id RETURNING status`,
});

/** Every submission still waiting for a crawl to find its challenge, oldest first. */
export function listQueuedSubmissions(db: DB): QueuedSubmission[] {
  return crawlStatements(db).queued.all() as QueuedSubmission[];
}

/** A crawl found the submitted endpoint's challenge: it is listed as this service. */
export function markSubmissionListed(db: DB, id: string, serviceId: string, now: string): void {
  crawlStatements(db).listed.run(serviceId, now, id);
}

/**
 * A crawl found no challenge: the reason is kept, and after three failed crawls over at least 24 h the
 * submission is rejected. Answers the submission's status afterwards.
 */
export function recordSubmissionFailure(db: DB, id: string, reason: string, now: string): Submission['status'] {
  const row = crawlStatements(db).failed.get({ id, reason, now, max: SUBMISSION_MAX_FAILURES }) as { status: Submission['status'] };
  return row.status;
}

/** A submission as an operator sees it: with the contact the submitter left. */
export interface SubmissionRecord extends Submission {
  contact: string | null;
}

const operatorStatements = preparedOnce({
  all: `SELECT ${PUBLIC_COLUMNS}, contact FROM submissions ORDER BY created_at DESC, id LIMIT ?`,
  ofStatus: `SELECT ${PUBLIC_COLUMNS}, contact FROM submissions WHERE status = ? ORDER BY created_at DESC, id LIMIT ?`,
  reject: `UPDATE submissions SET status = 'rejected', reason = ?, updated_at = ? WHERE id = ?`,
});

/** The newest submissions (of one status, when given), newest first, for an operator. */
export function listSubmissions(db: DB, options: { status?: Submission['status']; limit?: number } = {}): SubmissionRecord[] {
  const s = operatorStatements(db);
  const limit = options.limit ?? 500;
  return (options.status ? s.ofStatus.all(options.status, limit) : s.all.all(limit)) as SubmissionRecord[];
}

/** Rejects a submission with the reason kept (an operator's decision, or a host its owner delisted). */
export function rejectSubmission(db: DB, id: string, reason: string, now: string): void {
  operatorStatements(db).reject.run(reason, now, id);
}
