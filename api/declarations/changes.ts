import { z } from 'zod';
import { CHANGE_TYPES, ChangeId, ChangeList } from '../../domain/schemas.ts';
import { PAGE_LIMIT } from '../../domain/list-query.ts';
import { declareOperation, type OperationExample } from '../declaration.ts';

/** The change log (DESIGN.md "Changes, feeds, webhooks, badges"): what the index saw change, oldest first, by cursor. */

const single = (value: unknown) => (Array.isArray(value) ? value[0] : value);

const TYPES_MESSAGE = `must be a comma list of ${CHANGE_TYPES.join(', ')}`;
const LIMIT_MESSAGE = `must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`;

/** Change types, comma-separated (or repeated, or an array for MCP), each one of CHANGE_TYPES; none means every type. */
const ChangeTypes = z.preprocess(
  (value) => {
    const items: unknown[] = Array.isArray(value) ? value : [value];
    if (!items.every((item) => typeof item === 'string')) return value;
    return (items as string[]).flatMap((item) => item.split(',')).map((type) => type.trim().toLowerCase()).filter(Boolean);
  },
  z.array(z.enum(CHANGE_TYPES, { error: TYPES_MESSAGE }), { error: TYPES_MESSAGE }).optional(),
);

const ChangeQuery = {
  after: z.preprocess(single, ChangeId.optional())
    .meta({ description: 'A change id: only changes after it (the previous page\'s next_after). None: from the oldest kept (90 days).' }),
  type: ChangeTypes.meta({ description: `Only these types, comma-separated: ${CHANGE_TYPES.join(', ')}.` }),
  limit: z.preprocess((value) => {
    const text = single(value);
    return typeof text === 'string' && /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
  }, z.int({ error: LIMIT_MESSAGE }).min(PAGE_LIMIT.min, { error: LIMIT_MESSAGE }).max(PAGE_LIMIT.max, { error: LIMIT_MESSAGE })
    .default(PAGE_LIMIT.default))
    .meta({ description: 'Page size 1-500, default 100.', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max }),
};

const PAGE_SUMMARY = 'oldest first after the cursor `after`; follow next_after until it is null. Kept 90 days.';
const ERRORS_400 = 'missing_query: after not a change id, type not a comma list of change types, or limit outside 1-500 (named in the message).';

export const listChangesDeclaration = declareOperation({
  id: 'listChanges',
  method: 'GET',
  path: '/api/v1/changes',
  group: 'index',
  summary: `What changed in the index (listed, went live or dark, price, terms, endpoints, flags; owner and operator actions), ${PAGE_SUMMARY}`,
  input: {
    query: z.object({
      ...ChangeQuery,
      service: z.preprocess((value) => (typeof single(value) === 'string' ? String(single(value)).toLowerCase() : single(value)),
        z.string({ error: 'must be a service id' }).optional())
        .meta({ description: 'Only changes of this service id (case-insensitive).' }),
    }),
  },
  output: ChangeList,
  errors: { '400': ERRORS_400 },
  tool: { name: 'get_changes', title: 'What changed in the index', readOnly: true, arguments: { types: 'type' } },
  examples: (): OperationExample[] => [{ query: { type: 'went_live,went_dark', limit: '20' } }, { query: { after: '000000000001' } }],
});

export const listServiceChangesDeclaration = declareOperation({
  id: 'listServiceChanges',
  method: 'GET',
  path: '/api/v1/services/{id}/changes',
  group: 'index',
  summary: `What changed of one service, ${PAGE_SUMMARY}`,
  input: {
    path: z.object({ id: z.string().meta({ description: 'Service id (case-insensitive), e.g. api-example-com.' }) }),
    query: z.object(ChangeQuery),
  },
  output: ChangeList,
  errors: { '400': ERRORS_400, '404': 'not_found: no such service.' },
  examples: ({ exampleId }) => [{ path: { id: exampleId } }],
});
