import type { z } from 'zod';
import { toOwnershipPlaces } from '../../domain/ownership.ts';
import { createClaim, getClaim, recordClaimAttempt, verifyClaim } from '../../data/claims.ts';
import { getService } from '../../data/service-read.ts';
import { createClaimDeclaration, verifyClaimDeclaration, type Claim, type ClaimVerified } from '../declarations/claims.ts';
import { apiError } from '../errors.ts';
import { JsonReply } from '../http.ts';
import { defineOperation } from '../operation.ts';
import { assertClaimSecret, hashSecret, newClaimSecret, newOwnerKey } from '../owner-key.ts';
import { ownerRuntime } from '../owner-runtime.ts';

/**
 * Claims' handlers (what a claim is and answers: api/declarations/claims.ts). A secret or key is stored only as its
 * digest and answered once; verifying reads the owner's host through the crawler's ownership check.
 */

export const createClaimOperation = defineOperation(createClaimDeclaration, ({ body }, { deps, client = 'local' }) => {
  const id = body.service_id.toLowerCase();
  const service = getService(deps.db, id);
  if (!service) throw apiError(404, 'not_found', `No listed service with id "${id.slice(0, 100)}". Find ids at /api/v1/services.`);
  if (service.endpoint.startsWith('acp://')) throw apiError(409, 'conflict', 'An ACP merchant has no HTTP host to serve a token from; it cannot be claimed here.');
  const runtime = ownerRuntime(deps);
  runtime.spend('claimsPerClientAndService', `${client} ${id}`, 'claims of one service from one client');
  runtime.spend('claimsPerClient', client, 'claims from one client');
  const secret = newClaimSecret();
  const claim = createClaim(deps.db, { service_id: id, secret_digest: hashSecret(secret), client, now: deps.now() });
  const answer = {
    id: claim.id, service_id: id, token: claim.token, claim_secret: secret, ...toOwnershipPlaces(service.endpoint), expires_at: claim.expires_at,
  };
  return new JsonReply(201, { 'cache-control': 'no-store' }, answer satisfies z.infer<typeof Claim>);
});

export const verifyClaimOperation = defineOperation(verifyClaimDeclaration, async ({ path, headers }, { deps, client = 'local' }) => {
  const claim = getClaim(deps.db, path.id);
  assertClaimSecret(claim, headers.authorization);
  if (claim.status === 'verified') throw apiError(409, 'conflict', 'This claim was verified already; its key was shown then. Make a new claim to get a new key.');
  if (Date.parse(claim.expires_at) <= deps.now().getTime()) {
    throw apiError(409, 'conflict', `This claim expired at ${claim.expires_at}. Make a new claim with POST /api/v1/claims.`);
  }
  const service = getService(deps.db, claim.service_id);
  if (!service) throw apiError(404, 'not_found', `The service "${claim.service_id}" is not listed now.`);
  const runtime = ownerRuntime(deps);
  runtime.spend('verificationsPerClientAndService', `${client} ${claim.service_id}`, 'verifications of one service from one client');
  runtime.spend('verificationsPerClient', client, 'verifications from one client');
  const { agent, checkOwnership } = await runtime.crawler();
  const check = await checkOwnership(service.endpoint, claim.token, { dispatcher: agent.dispatcher, allow: deps.config.allowPrivateTargets, dns: runtime.dns });
  if (!check.verified) {
    recordClaimAttempt(deps.db, claim.id, check.found);
    throw apiError(409, 'conflict', `The token was not found: ${check.found}.`);
  }
  const key = newOwnerKey();
  if (!verifyClaim(deps.db, claim, hashSecret(key), deps.now().toISOString())) {
    throw apiError(409, 'conflict', 'This claim was verified already; its key was shown then.');
  }
  deps.onDataChanged?.();
  return { status: 'verified', service_id: claim.service_id, owner_key: key } satisfies z.infer<typeof ClaimVerified>;
});
