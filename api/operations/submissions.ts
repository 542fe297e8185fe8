import type { Submission, SubmitResult } from '../../domain/schemas.ts';
import { findEarlierSubmission, getSubmission, submitService, toEndpointKey } from '../../data/submissions.ts';
import { assertPublicUrl, TargetError } from '../../net/guard.ts';
import { getSubmissionDeclaration, submitServiceDeclaration } from '../declarations/submissions.ts';
import { apiError } from '../errors.ts';
import { appLookupGate } from '../lookup-gate.ts';
import { defineOperation } from '../operation.ts';

/** Submissions: anyone may submit an endpoint; the next crawl probes it and lists it when it answers a challenge. */

export const submitServiceOperation = defineOperation(submitServiceDeclaration, async ({ body, headers }, { deps, client = 'local' }) => {
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
});

export const getSubmissionOperation = defineOperation(getSubmissionDeclaration, ({ path }, { deps }) => {
  const submission = getSubmission(deps.db, path.id);
  if (!submission) throw apiError(404, 'not_found', 'No submission with that id. Submit at POST /api/v1/submit.');
  return submission;
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
