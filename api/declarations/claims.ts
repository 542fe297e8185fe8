import { z } from 'zod';
import { declareOperation } from '../declaration.ts';

/**
 * Claims (DESIGN.md "Owners and operators", "Public data only"): whoever controls a service's host proves it by serving
 * a token, and gets the owner key. Only the client that made the claim can verify it: verifying needs the claim's
 * secret, answered once with it, so a claim id or token seen elsewhere (on the host, in a published copy) is worth
 * nothing. Not MCP tools: the secrets and keys they answer should never sit in an agent's transcript.
 */

const dateTime = z.iso.datetime({ offset: true });

export const Claim = z
  .object({
    id: z.string().meta({ example: 'clm_3q2xkS1bUu9o0nQW' }),
    service_id: z.string(),
    token: z.string().meta({ description: 'Serve it as the whole body of well_known_url, or as the TXT record dns_name. Not a secret.' }),
    claim_secret: z.string().meta({
      description: 'clms_…: shown once; send it as Authorization: Bearer to verify this claim. Keep it to yourself: the token is public once served, the secret never is.',
      example: 'clms_…',
    }),
    well_known_url: z.string().meta({ example: 'https://api.example.com/.well-known/payable-service-index.txt' }),
    dns_name: z.string().meta({ example: '_payable-service-index.api.example.com' }),
    expires_at: dateTime.meta({ description: 'Seven days after the claim: verify before then.' }),
  })
  .meta({ id: 'Claim' });

export const ClaimVerified = z
  .object({
    status: z.literal('verified'),
    service_id: z.string(),
    owner_key: z.string().meta({ description: 'psi_…: shown once; send it as Authorization: Bearer on the owner routes. It replaces any earlier key.' }),
  })
  .meta({ id: 'ClaimVerified' });

export const createClaimDeclaration = declareOperation({
  id: 'createClaim',
  method: 'POST',
  path: '/api/v1/claims',
  group: 'index',
  summary: 'Claim a service: answers a token to serve at the host\'s well-known file or in a TXT record, and the claim secret (shown once) that verifying the claim within 7 days needs.',
  input: {
    body: z.object({
      service_id: z.string({ error: 'is required: the id of a listed service' }).trim().min(1, { error: 'is required: the id of a listed service' })
        .max(300, { error: 'is over 300 characters' }).meta({ description: 'The id of a listed service.' }),
    }).meta({ id: 'ClaimRequest' }),
  },
  output: Claim,
  status: 201,
  errors: { '400': 'invalid_json.', '404': 'not_found: no such listed service.', '413': 'invalid_json: body over 64 KiB.' },
  examples: ({ exampleId }) => [{ body: { service_id: exampleId } }],
});

export const verifyClaimDeclaration = declareOperation({
  id: 'verifyClaim',
  method: 'POST',
  path: '/api/v1/claims/{id}/verify',
  group: 'index',
  summary: 'Verify a claim with its secret: the index reads the well-known file (5 s, 4 KiB, same host) and the TXT record; either holding the token answers the owner key, shown once.',
  input: {
    path: z.object({ id: z.string().meta({ description: 'The claim id.' }) }),
    headers: z.object({
      authorization: z.string().optional().meta({ description: 'Bearer <claim_secret>, the secret POST /api/v1/claims answered with the claim.' }),
    }),
  },
  output: ClaimVerified,
  bearer: 'claimSecret',
  errors: {
    '401': 'unauthorized: no claim secret, or not this claim\'s (an unknown claim id answers the same).',
    '404': 'not_found: the claim\'s service is no longer listed.',
    '409': 'conflict: the token was not found (the message says what was found instead), the claim expired, or it was verified already.',
  },
  examples: () => [{ path: { id: '{claim_id}' }, headers: { Authorization: 'Bearer clms_…' } }],
});
