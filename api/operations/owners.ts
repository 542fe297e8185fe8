import type { z } from 'zod';
import type { Probe } from '../../domain/schemas.ts';
import { delistService, editService, getDelisting, relistService } from '../../data/owners.ts';
import { recordProbe } from '../../data/probes.ts';
import { readServiceDetail } from '../../data/service-detail.ts';
import { getService } from '../../data/service-read.ts';
import { getServiceInput } from '../../data/services.ts';
import {
  delistServiceDeclaration, editServiceDeclaration, recheckServiceDeclaration, relistServiceDeclaration,
} from '../declarations/owners.ts';
import { apiError } from '../errors.ts';
import { JsonBytes } from '../http.ts';
import { defineOperation, type OperationContext } from '../operation.ts';
import { assertOwner } from '../owner-key.ts';
import { ownerRuntime } from '../owner-runtime.ts';

/**
 * What a verified owner does to their service (api/declarations/owners.ts): each action first checks the owner key,
 * and an edit, delist or relist spends one of the service's hourly allowance before anything is written.
 */

export const editServiceOperation = defineOperation(editServiceDeclaration, ({ path, headers, body }, context) => {
  const id = toActedOnId(context, path.id, headers.authorization);
  const listed = getServiceInput(context.deps.db, id);
  if (!listed) throw notListed(context, id);
  if (body.main_endpoint !== undefined && !listed.endpoints.some((e) => e.url === body.main_endpoint)) {
    const urls = listed.endpoints.slice(0, 10).map((e) => e.url).join(', ');
    throw apiError(400, 'invalid_endpoint', `"main_endpoint" must be one of the service's listed endpoints: ${urls}.`);
  }
  const edits = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  const moved = editService(context.deps.db, id, edits, context.deps.now().toISOString());
  if (moved.length > 0) context.deps.onDataChanged?.();
  return readDetail(context, id);
});

export const delistServiceOperation = defineOperation(delistServiceDeclaration, ({ path, headers, body }, context) => {
  const id = toActedOnId(context, path.id, headers.authorization);
  const reason = body.reason ?? null;
  if (!delistService(context.deps.db, id, { reason, by: 'owner', now: context.deps.now().toISOString() })) {
    if (getDelisting(context.deps.db, id)) throw apiError(409, 'conflict', 'This service is delisted already. POST …/relist brings it back.');
    throw notListed(context, id);
  }
  context.deps.onDataChanged?.();
  return { status: 'delisted' as const, service_id: id, reason };
});

export const relistServiceOperation = defineOperation(relistServiceDeclaration, ({ path, headers }, context) => {
  const id = toActedOnId(context, path.id, headers.authorization);
  if (!relistService(context.deps.db, id, { by: 'owner', now: context.deps.now().toISOString() })) {
    throw apiError(409, 'conflict', 'This service is not delisted: there is nothing to relist.');
  }
  context.deps.onDataChanged?.();
  return readDetail(context, id);
});

export const recheckServiceOperation = defineOperation(recheckServiceDeclaration, async ({ path, headers }, context) => {
  const id = toOwnedId(context, path.id, headers.authorization);
  const { deps } = context;
  const listed = getServiceInput(deps.db, id);
  if (!listed) throw notListed(context, id);
  if (listed.endpoint.startsWith('acp://')) throw apiError(409, 'conflict', 'An ACP merchant has no HTTP endpoint to probe.');
  const runtime = ownerRuntime(deps);
  runtime.spend('rechecksPerService', id, 'recheck of one service');
  const main = listed.endpoints.find((e) => e.url === listed.endpoint);
  const { agent, probeEndpoint } = await runtime.crawler();
  const outcome = await probeEndpoint({ url: listed.endpoint, method: main?.method, body: main?.example_body }, { agent, now: deps.now });
  // A delisting while the probe ran leaves nothing to record it on.
  if (getService(deps.db, id)) recordProbe(deps.db, { service_id: id, ...outcome });
  deps.onDataChanged?.();
  const { probed_at, ok, status_code, method, latency_ms, reason, detected_rails } = outcome;
  return { probed_at, ok, status_code, method, latency_ms, reason, detected_rails } satisfies z.infer<typeof Probe>;
});

/** The lower-cased id, once the request carries that service's owner key (else 401). */
function toOwnedId({ deps }: OperationContext, given: string, authorization: string | undefined): string {
  const id = given.toLowerCase();
  assertOwner(deps.db, id, authorization);
  return id;
}

/**
 * The lower-cased id of the service an owner action (edit, delist, relist) is on, once the key is its owner's and the
 * service's hourly allowance of actions has one left (else 429, before anything is written).
 */
function toActedOnId(context: OperationContext, given: string, authorization: string | undefined): string {
  const id = toOwnedId(context, given, authorization);
  ownerRuntime(context.deps).spend('ownerActionsPerService', id, 'owner actions on one service');
  return id;
}

function readDetail({ deps }: OperationContext, id: string): JsonBytes {
  const detail = readServiceDetail(deps.db, id);
  if (!detail) throw apiError(404, 'not_found', `No listed service with id "${id.slice(0, 100)}".`);
  return new JsonBytes(detail.body, detail.digest);
}

function notListed({ deps }: OperationContext, id: string) {
  const delisting = getDelisting(deps.db, id);
  if (delisting) return apiError(404, 'not_found', `The service "${id.slice(0, 100)}" is delisted. POST …/relist brings it back.`);
  return apiError(404, 'not_found', `No listed service with id "${id.slice(0, 100)}".`);
}
