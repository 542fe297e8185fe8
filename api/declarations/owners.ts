import { z } from 'zod';
import { Probe, ServiceDetail } from '../../domain/schemas.ts';
import { cleanTextField } from '../../domain/text.ts';
import { declareOperation } from '../declaration.ts';

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

export const editServiceDeclaration = declareOperation({
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
});

export const delistServiceDeclaration = declareOperation({
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
});

export const relistServiceDeclaration = declareOperation({
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
});

export const recheckServiceDeclaration = declareOperation({
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
});
