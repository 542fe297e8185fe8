import { z } from 'zod';
import { Probe, ServiceDetail } from '../../domain/schemas.ts';
import { cleanTextField } from '../../domain/text.ts';
import { delistService, editService, getDelisting, relistService } from '../../data/owners.ts';
import { recordProbe } from '../../data/probes.ts';
import { readServiceDetail } from '../../data/service-detail.ts';
import { getService } from '../../data/service-read.ts';
import { getServiceInput } from '../../data/services.ts';
import { apiError } from '../errors.ts';
import { JsonBytes } from '../http.ts';
import { defineOperation, type OperationContext } from '../operation.ts';
import { assertOwner } from '../owner-key.ts';
import { ownerRuntime } from '../owner-runtime.ts';

/**
 * What a verified owner does to their service, with `Authorization: Bearer <owner_key>`: edit it, delist it, relist
 * it, probe it now. Not MCP tools: each needs the owner key, a secret an agent's transcript should never hold.
 */

const idPath = z.object({ id: z.string().meta({ description: 'Service id (case-insensitive).' }) });
const ownerHeaders = z.object({
  authorization: z.string().optional().meta({ description: 'Bearer <owner_key>, the key a verified claim answered.' }),
});
const UNAUTHORIZED = "unauthorized: no owner key, or not this service's.";

const text = (max: number, description: string) =>
  cleanTextField({ error: `must be a string of 1-${max} characters, or null to go back to the directories' value` }).trim()
    .min(1, { error: `must be 1-${max} characters, or null` }).max(max, { error: `is over ${max} characters` })
    .nullable().optional().meta({ description });
const httpsUrl = z.string({ error: 'must be an https URL, or null' }).trim().max(2048, { error: 'is over 2048 characters' })
  .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:' && !new URL(value).username, { error: 'must be an absolute https URL without credentials' })
  .nullable().optional().meta({ description: 'A link to the service\'s documentation (https).', format: 'uri' });

export const ServiceEdit = z
  .object({
    name: text(120, 'Display name.'),
    description: text(1000, 'What the service does.'),
    category: text(60, 'Category, e.g. data, ai, search.'),
    main_endpoint: z.string({ error: 'must be one of the service\'s listed endpoint URLs' }).trim().max(2048).optional()
      .meta({ description: 'The endpoint probed and shown first: one of the URLs the service lists.' }),
    docs_url: httpsUrl,
  })
  .refine((edit) => Object.values(edit).some((value) => value !== undefined), { error: 'Send at least one of name, description, category, main_endpoint, docs_url.' })
  .meta({ id: 'ServiceEdit' });

export const editServiceOperation = defineOperation({
  id: 'editService',
  method: 'PATCH',
  path: '/api/v1/services/{id}',
  group: 'index',
  summary: 'The owner edits their service: what they set wins over directory data in every later crawl, and shows as theirs on the page. Answers the new detail. Edits, delists and relists: 10 an hour per service.',
  input: { path: idPath, headers: ownerHeaders, body: ServiceEdit },
  bearer: 'ownerKey',
  output: ServiceDetail,
  errors: {
    '400': 'invalid_json (a field outside its limits, named in the message) or invalid_endpoint (main_endpoint not among the listed endpoints).',
    '401': UNAUTHORIZED,
    '404': 'not_found: no such listed service.',
  },
  examples: ({ exampleId }) => [{ path: { id: exampleId }, headers: { Authorization: 'Bearer psi_…' }, body: { name: 'Example Weather', docs_url: 'https://docs.example.com' } }],
  handle: ({ path, headers, body }, context) => {
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
  },
});

export const delistServiceOperation = defineOperation({
  id: 'delistService',
  method: 'POST',
  path: '/api/v1/services/{id}/delist',
  group: 'index',
  summary: 'The owner takes their service out of the index: it leaves lists, counts, pages and snapshots, and discovery never lists it again until relisted. Edits, delists and relists: 10 an hour per service.',
  input: {
    path: idPath,
    headers: ownerHeaders,
    body: z.object({ reason: text(500, 'Why, shown in the change log.') }).meta({ id: 'DelistRequest' }),
  },
  bearer: 'ownerKey',
  output: z.object({ status: z.literal('delisted'), service_id: z.string(), reason: z.string().nullable() }).meta({ id: 'Delisted' }),
  errors: { '400': 'invalid_json.', '401': UNAUTHORIZED, '404': 'not_found: no such service.', '409': 'conflict: delisted already.' },
  examples: ({ exampleId }) => [{ path: { id: exampleId }, headers: { Authorization: 'Bearer psi_…' }, body: { reason: 'Retired' } }],
  handle: ({ path, headers, body }, context) => {
    const id = toActedOnId(context, path.id, headers.authorization);
    const reason = body.reason ?? null;
    if (!delistService(context.deps.db, id, { reason, by: 'owner', now: context.deps.now().toISOString() })) {
      if (getDelisting(context.deps.db, id)) throw apiError(409, 'conflict', 'This service is delisted already. POST …/relist brings it back.');
      throw notListed(context, id);
    }
    context.deps.onDataChanged?.();
    return { status: 'delisted' as const, service_id: id, reason };
  },
});

export const relistServiceOperation = defineOperation({
  id: 'relistService',
  method: 'POST',
  path: '/api/v1/services/{id}/relist',
  group: 'index',
  summary: 'The owner brings a delisted service back as it was listed; its checks start afresh. Answers the detail. Edits, delists and relists: 10 an hour per service.',
  input: { path: idPath, headers: ownerHeaders },
  bearer: 'ownerKey',
  output: ServiceDetail,
  errors: { '401': UNAUTHORIZED, '409': 'conflict: the service is listed (not delisted).' },
  examples: ({ exampleId }) => [{ path: { id: exampleId }, headers: { Authorization: 'Bearer psi_…' } }],
  handle: ({ path, headers }, context) => {
    const id = toActedOnId(context, path.id, headers.authorization);
    if (!relistService(context.deps.db, id, { by: 'owner', now: context.deps.now().toISOString() })) {
      throw apiError(409, 'conflict', 'This service is not delisted: there is nothing to relist.');
    }
    context.deps.onDataChanged?.();
    return readDetail(context, id);
  },
});

export const recheckServiceOperation = defineOperation({
  id: 'recheckService',
  method: 'POST',
  path: '/api/v1/services/{id}/recheck',
  group: 'index',
  summary: 'The owner has the main endpoint probed now (at most once a minute per service); answers the probe, and the pages follow.',
  input: { path: idPath, headers: ownerHeaders },
  bearer: 'ownerKey',
  output: Probe,
  errors: { '401': UNAUTHORIZED, '404': 'not_found: no such listed service.', '409': 'conflict: an ACP merchant has no endpoint to probe.' },
  examples: ({ exampleId }) => [{ path: { id: exampleId }, headers: { Authorization: 'Bearer psi_…' } }],
  handle: async ({ path, headers }, context) => {
    const id = toOwnedId(context, path.id, headers.authorization);
    const { deps } = context;
    const listed = getServiceInput(deps.db, id);
    if (!listed) throw notListed(context, id);
    if (listed.endpoint.startsWith('acp://')) throw apiError(409, 'conflict', 'An ACP merchant has no HTTP endpoint to probe.');
    const runtime = ownerRuntime(deps);
    runtime.spend('rechecksPerService', id, 'recheck of one service');
    const main = listed.endpoints.find((e) => e.url === listed.endpoint);
    const { agent, probeEndpoint } = await runtime.prober();
    const outcome = await probeEndpoint({ url: listed.endpoint, method: main?.method, body: main?.example_body }, { agent, now: deps.now });
    // A delisting while the probe ran leaves nothing to record it on.
    if (getService(deps.db, id)) recordProbe(deps.db, { service_id: id, ...outcome });
    deps.onDataChanged?.();
    const { probed_at, ok, status_code, method, latency_ms, reason, detected_rails } = outcome;
    return { probed_at, ok, status_code, method, latency_ms, reason, detected_rails } satisfies z.infer<typeof Probe>;
  },
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
