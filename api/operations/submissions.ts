import { z } from 'zod';
import { Submission, SubmitResult } from '../../domain/schemas.ts';
import { cleanTextField } from '../../domain/text.ts';
import { findEarlierSubmission, getSubmission, submitService, toEndpointKey } from '../../data/submissions.ts';
import { assertPublicUrl, TargetError } from '../../net/guard.ts';
import { apiError } from '../errors.ts';
import { appLookupGate } from '../lookup-gate.ts';
import { defineOperation } from '../operation.ts';

/** Submissions: anyone may submit an endpoint; the next crawl probes it and lists it when it answers a challenge. */

const MAX_ENDPOINT_LENGTH = 2048;
const MAX_TEXT_LENGTH = 200;

const ENDPOINT_REQUIRED = 'is required: the absolute http(s) URL that answers the payment challenge';
const optionalText = (description: string) =>
  cleanTextField({ error: `must be a string of at most ${MAX_TEXT_LENGTH} characters` })
    .max(MAX_TEXT_LENGTH, { error: `must be a string of at most ${MAX_TEXT_LENGTH} characters` })
    .nullish().transform((text) => text?.trim() || null).meta({ description });

export const SubmitBody = z
  .object({
    endpoint: z.string({ error: ENDPOINT_REQUIRED }).trim().min(1, { error: ENDPOINT_REQUIRED })
      .max(MAX_ENDPOINT_LENGTH, { error: `is over ${MAX_ENDPOINT_LENGTH} characters` })
      .meta({ description: 'Required: the absolute http(s) URL that answers the payment challenge.', format: 'uri' }),
    name: optionalText('Optional display name.'),
    contact: optionalText('Optional; kept private, never shown in any response.'),
  })
  .meta({ id: 'SubmitRequest' });

export const submitServiceOperation = defineOperation({
  id: 'submitService',
  method: 'POST',
  path: '/api/v1/submit',
  group: 'index',
  summary: 'Submit a service. It is probed on the next crawl and listed when it answers a payment challenge; the same endpoint within 24 h, or the same Idempotency-Key, answers the earlier submission.',
  input: {
    headers: z.object({
      'idempotency-key': z.string().trim().max(255, { error: 'is over 255 characters' }).optional()
        .transform((key) => key || null)
        .meta({ description: 'Optional; the same key is answered with the first submission made with it.' }),
    }),
    body: SubmitBody,
  },
  fieldErrors: { endpoint: 'invalid_endpoint', 'idempotency-key': 'invalid_json' },
  output: SubmitResult,
  errors: { '400': 'invalid_json or invalid_endpoint.', '413': 'invalid_json: body over 64 KiB.' },
  tool: { name: 'submit_service', title: 'Submit a service for listing', readOnly: false },
  examples: () => [{ body: { endpoint: 'https://api.example.com/v1/pay', name: 'Example' }, headers: { 'Idempotency-Key': '7f3c2a' } }],
  handle: async ({ body, headers }, { deps, client = 'local' }) => {
    const allow = deps.config.allowPrivateTargets;
    const idempotencyKey = headers['idempotency-key'];
    // A repeat is answered before any lookup: only a new submission costs one.
    const given = await toPublicEndpoint(body.endpoint, { allow, resolve: false });
    const earlier = findEarlierSubmission(deps.db, { endpoint: given, idempotencyKey }, deps.now());
    if (earlier) return toSubmitResult(earlier, true, given);
    const gate = appLookupGate(deps);
    const endpoint = await toPublicEndpoint(given, { allow, lookup: (host) => gate.lookup(client, host) });
    const { submission, deduplicated } = submitService(deps.db, { endpoint, name: body.name, contact: body.contact, idempotencyKey }, deps.now());
    return toSubmitResult(submission, deduplicated, endpoint);
  },
});

export const getSubmissionOperation = defineOperation({
  id: 'getSubmission',
  method: 'GET',
  path: '/api/v1/submissions/{id}',
  group: 'index',
  summary: 'Where a submission stands: queued, listed (with its service id) or rejected (with the reason).',
  input: { path: z.object({ id: z.string().meta({ description: 'The id answered by submit.' }) }) },
  output: Submission,
  errors: { '404': 'not_found: no such submission.' },
  tool: { name: 'get_submission', title: 'Follow a submission', readOnly: true },
  examples: () => [{ path: { id: '{id}' } }],
  handle: ({ path }, { deps }) => {
    const submission = getSubmission(deps.db, path.id);
    if (!submission) throw apiError(404, 'not_found', 'No submission with that id. Submit at POST /api/v1/submit.');
    return submission;
  },
});

/** The answer to a submit; when it echoes a submission of another endpoint (a reused Idempotency-Key), it says so. */
function toSubmitResult(submission: Submission, deduplicated: boolean, sent: string): SubmitResult {
  const result: SubmitResult = { ok: true, deduplicated, id: submission.id, status: submission.status, submission };
  if (deduplicated && toEndpointKey(submission.endpoint) !== toEndpointKey(sent)) {
    result.message = `This Idempotency-Key was first used for ${submission.endpoint}: that submission is answered, and ${sent} was not submitted. Use a new key for a new endpoint.`;
  }
  return result;
}

async function toPublicEndpoint(endpoint: string, options: Omit<Parameters<typeof assertPublicUrl>[1], 'onUnresolvable'>): Promise<string> {
  try {
    const url = await assertPublicUrl(endpoint, { ...options, onUnresolvable: 'accept' });
    return url.href;
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    throw apiError(400, 'invalid_endpoint', `"endpoint" ${error.message}: submit a public absolute http(s) URL.`);
  }
}
