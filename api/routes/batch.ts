import { getQuery, type H3Event } from 'h3';
import { getServicesByIds } from '../../data/services.ts';
import type { AppDeps } from '../app.ts';
import { readJsonObject } from '../body.ts';
import { apiError } from '../errors.ts';
import type { BatchResult } from '../schemas.ts';

/** At most this many distinct ids per batch. */
export const MAX_BATCH_IDS = 100;

/** POST /api/v1/services/batch with `{ "ids": [...] }`. */
export function postBatchRoute(deps: AppDeps) {
  return async (event: H3Event) => {
    const body = await readJsonObject(event);
    const { ids } = body;
    if (!Array.isArray(ids) || !ids.every((id): id is string => typeof id === 'string')) {
      throw apiError(400, 'invalid_ids', '"ids" must be an array of 1-100 service id strings.');
    }
    return lookUp(deps, ids);
  };
}

/** GET /api/v1/services/batch?ids=a,b,c for clients that cannot send a body. */
export function getBatchRoute(deps: AppDeps) {
  return (event: H3Event) => {
    const { ids } = getQuery(event);
    const text = Array.isArray(ids) ? ids.join(',') : ids;
    if (text === undefined) {
      throw apiError(400, 'missing_query', 'Add ?ids= with 1-100 comma-separated service ids.');
    }
    return lookUp(deps, String(text).split(','));
  };
}

function lookUp({ db, now }: AppDeps, ids: string[]): BatchResult {
  const requested = toDistinctIds(ids);
  if (requested.size === 0 || requested.size > MAX_BATCH_IDS) {
    throw apiError(400, 'invalid_ids', `Send 1-${MAX_BATCH_IDS} distinct service ids; got ${requested.size}.`);
  }
  const found = getServicesByIds(db, [...requested.keys()]);
  const foundIds = new Set(found.map((service) => service.id));
  return {
    generated_at: now().toISOString(),
    requested: requested.size,
    found,
    missing: [...requested].filter(([id]) => !foundIds.has(id)).map(([, asSent]) => asSent),
  };
}

/**
 * The distinct ids in the order sent, lower-cased (ids are case-insensitive), each with its first spelling as sent,
 * so `missing` names ids the way the client wrote them.
 */
function toDistinctIds(ids: string[]): Map<string, string> {
  const distinct = new Map<string, string>();
  for (const id of ids.map((text) => text.trim()).filter(Boolean)) {
    if (!distinct.has(id.toLowerCase())) distinct.set(id.toLowerCase(), id);
  }
  return distinct;
}
