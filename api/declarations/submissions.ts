import { z } from 'zod';
import { Submission, SubmitResult } from '../../domain/schemas.ts';
import { cleanTextField } from '../../domain/text.ts';
import { declareOperation } from '../declaration.ts';

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

export const submitServiceDeclaration = declareOperation({
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
});

export const getSubmissionDeclaration = declareOperation({
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
});
