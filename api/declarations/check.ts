import { z } from 'zod';
import { CheckResult } from '../../domain/check.ts';
import { declareOperation } from '../declaration.ts';

/**
 * A seller's check: any URL probed now, through the SSRF guard and the probe's limits, answered with every challenge,
 * every problem and its fix, what the host publishes for discovery, and whether the index lists it.
 */

const URL_REQUIRED = 'is required: the absolute http(s) URL to check';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const CheckRequest = z.object({
  url: z.string({ error: URL_REQUIRED }).trim().min(1, { error: URL_REQUIRED }).max(2048, { error: 'is over 2048 characters' })
    .meta({ description: 'The absolute http(s) URL that should answer 402 with a payment challenge.', format: 'uri' }),
  method: z.string({ error: `must be one of ${METHODS.join(', ')}` }).trim().toUpperCase().pipe(z.enum(METHODS, { error: `must be one of ${METHODS.join(', ')}` }))
    .optional().meta({ description: 'The method it is called with; default GET, then POST when GET answers 400/404/405/422.' }),
}).meta({ id: 'CheckRequest' });

export const checkEndpointDeclaration = declareOperation({
  id: 'checkEndpoint',
  method: 'POST',
  path: '/api/v1/check',
  group: 'index',
  summary: 'Check any URL now, as the index probes it: every payment challenge decoded with its offers, every problem with a stable code and its fix, the host\'s discovery documents, and whether the index lists it. At most 6 a minute per client.',
  input: { body: CheckRequest },
  fieldErrors: { url: 'invalid_endpoint' },
  output: CheckResult,
  errors: { '400': 'invalid_json, or invalid_endpoint (not a public absolute http(s) URL).', '413': 'invalid_json: body over 64 KiB.' },
  tool: { name: 'check_endpoint', title: 'Check a payable endpoint', readOnly: true },
  examples: () => [{ body: { url: 'https://api.example.com/v1/quote', method: 'GET' } }],
});
