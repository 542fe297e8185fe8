import { getRouterParam, type H3Event } from 'h3';
import { getSubmission, submitService } from '../../data/submissions.ts';
import { assertPublicUrl, TargetError } from '../../crawler/targets.ts';
import type { AppDeps } from '../app.ts';
import { readJsonObject } from '../body.ts';
import { apiError } from '../errors.ts';
import type { Submission, SubmitResult } from '../schemas.ts';

const MAX_ENDPOINT_LENGTH = 2048;
const MAX_TEXT_LENGTH = 200;

/**
 * POST /api/v1/submit: queues an endpoint for the next crawl to probe, or echoes the earlier submission
 * of the same endpoint (24 h) or the same `Idempotency-Key`.
 */
export function submitRoute({ db, config, now, lookup }: AppDeps) {
  return async (event: H3Event): Promise<SubmitResult> => {
    const body = await readJsonObject(event);
    const endpoint = await toEndpoint(body.endpoint, { allow: config.allowPrivateTargets, lookup });
    const outcome = submitService(
      db,
      {
        endpoint,
        name: toOptionalText(body.name, 'name'),
        contact: toOptionalText(body.contact, 'contact'),
        idempotencyKey: toIdempotencyKey(event.req.headers.get('idempotency-key')),
      },
      now(),
    );
    const { submission, deduplicated } = outcome;
    return { ok: true, deduplicated, id: submission.id, status: submission.status, submission };
  };
}

/** GET /api/v1/submissions/{id}: a submission's status (queued, listed, rejected) and reason. */
export function getSubmissionRoute({ db }: AppDeps) {
  return (event: H3Event): Submission => {
    const id = getRouterParam(event, 'id', { decode: true }) ?? '';
    const submission = getSubmission(db, id);
    if (!submission) throw apiError(404, 'not_found', 'No submission with that id. Submit at POST /api/v1/submit.');
    return submission;
  };
}

async function toEndpoint(value: unknown, options: Parameters<typeof assertPublicUrl>[1]): Promise<string> {
  if (typeof value !== 'string' || value.trim() === '') {
    throw apiError(400, 'invalid_endpoint', '"endpoint" is required: the absolute http(s) URL that answers the payment challenge.');
  }
  if (value.length > MAX_ENDPOINT_LENGTH) {
    throw apiError(400, 'invalid_endpoint', `"endpoint" is over ${MAX_ENDPOINT_LENGTH} characters.`);
  }
  try {
    const url = await assertPublicUrl(value.trim(), { ...options, onUnresolvable: 'accept' });
    return url.href;
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    throw apiError(400, 'invalid_endpoint', `"endpoint" ${error.message}: submit a public absolute http(s) URL.`);
  }
}

function toOptionalText(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_TEXT_LENGTH) {
    throw apiError(400, 'invalid_json', `"${field}" must be a string of at most ${MAX_TEXT_LENGTH} characters.`);
  }
  return value.trim() || null;
}

function toIdempotencyKey(value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  if (value.length > 255) throw apiError(400, 'invalid_json', 'The Idempotency-Key header is over 255 characters.');
  return value.trim();
}
