import { z } from 'zod';
import { RAILS } from '../data/types.ts';

/**
 * The single source of truth for every request and response shape of the API:
 * types come from `z.infer`, tests validate responses against these, and `/openapi.json` is generated from them.
 */

const dateTime = z.iso.datetime({ offset: true });

export const Rail = z.enum(RAILS).meta({ id: 'Rail', description: 'A payment rail.' });

export const Price = z
  .object({
    display: z.string().nullable().meta({ example: '$0.01 / call' }),
    usd: z.number().nullable().meta({ example: 0.01 }),
  })
  .meta({ id: 'Price' });

export const Service = z
  .object({
    id: z.string().meta({ description: 'Stable slug of the endpoint host. Matching is case-insensitive.', example: 'api-example-com' }),
    name: z.string(),
    category: z.string().nullable(),
    description: z.string().nullable(),
    rails: z.array(Rail),
    chains: z.array(z.string()).meta({ description: 'Chain names (base, solana, tempo, ...); unknown chains keep their CAIP-2 id.' }),
    assets: z.array(z.string()).meta({ example: ['USDC'] }),
    price: Price,
    endpoint: z.string().meta({ description: 'The URL that answers the payment challenge.' }),
    facilitator: z.string().nullable(),
    live: z.boolean().nullable().meta({ description: 'true: answered a payment challenge on the last probe; null: not yet probed.' }),
    last_seen_live: dateTime.nullable(),
    first_indexed: dateTime,
    sources: z.array(z.string()).meta({ description: 'Directories the service was found in.' }),
  })
  .meta({ id: 'Service' });
export type Service = z.infer<typeof Service>;

export const Probe = z
  .object({
    probed_at: dateTime,
    ok: z.boolean(),
    status_code: z.int().nullable(),
    method: z.string().nullable(),
    latency_ms: z.int().nullable(),
    reason: z.string().nullable().meta({ description: 'Why no challenge was detected, when ok is false.' }),
    detected_rails: z.array(Rail).meta({ description: 'Rails detected in the challenge.' }),
  })
  .meta({ id: 'Probe' });

export const ServiceDetail = Service.extend({
  source_urls: z.array(z.object({ source: z.string(), url: z.string().nullable() })),
  probes: z.array(Probe).meta({ description: 'The last 20 liveness probes, newest first.' }),
}).meta({ id: 'ServiceDetail' });
export type ServiceDetail = z.infer<typeof ServiceDetail>;

const Counts = z.object({ total: z.int(), live: z.int(), dual_rail: z.int() });

export const ServiceList = z
  .object({
    generated_at: dateTime,
    counts: Counts.meta({ description: 'Counts over every service matching the filters (not just this page).' }),
    page: z.object({
      limit: z.int().min(1).max(500),
      offset: z.int().min(0),
      next_offset: z.int().nullable().meta({ description: 'null on the last page.' }),
    }),
    services: z.array(Service),
  })
  .meta({ id: 'ServiceList' });
export type ServiceList = z.infer<typeof ServiceList>;

export const Stats = z
  .object({
    generated_at: dateTime,
    total: z.int(),
    live: z.int(),
    probed: z.int(),
    dual_rail: z.int(),
    rails: z.int().meta({ description: 'Number of rails with at least one service.' }),
    last_probe_at: dateTime.nullable(),
  })
  .meta({ id: 'Stats' });
export type Stats = z.infer<typeof Stats>;

export const BatchResult = z
  .object({
    generated_at: dateTime,
    requested: z.int().meta({ description: 'Number of distinct ids looked up.' }),
    found: z.array(Service),
    missing: z.array(z.string()).meta({ description: 'Requested ids not in the index, as sent (trimmed, first spelling of each).' }),
  })
  .meta({ id: 'BatchResult' });
export type BatchResult = z.infer<typeof BatchResult>;

export const SubmissionStatus = z.enum(['queued', 'listed', 'rejected']).meta({ id: 'SubmissionStatus' });

export const Submission = z
  .object({
    id: z.string(),
    endpoint: z.string(),
    name: z.string().nullable(),
    status: SubmissionStatus,
    reason: z.string().nullable().meta({ description: 'Why the last probe found no challenge, or why it was rejected.' }),
    attempts: z.int().meta({ description: 'Crawls that have probed it.' }),
    service_id: z.string().nullable().meta({ description: 'The listed service, once listed.' }),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Submission' });
export type Submission = z.infer<typeof Submission>;

export const SubmitResult = z
  .object({
    ok: z.boolean(),
    deduplicated: z.boolean().meta({ description: 'true when an identical recent submission already existed.' }),
    id: z.string().meta({ description: 'The submission id; follow it at /api/v1/submissions/{id}.' }),
    status: SubmissionStatus,
    submission: Submission,
  })
  .meta({ id: 'SubmitResult', description: '`submission` is the stored record (the earlier one when deduplicated).' });
export type SubmitResult = z.infer<typeof SubmitResult>;

export const ERROR_CODES = [
  'not_found',
  'invalid_endpoint',
  'invalid_json',
  'invalid_ids',
  'missing_query',
  'rate_limited',
  'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorResponse = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      endpoints: z.array(z.string()).optional().meta({ description: 'On not_found for an unknown path: the paths that exist.' }),
    }),
  })
  .meta({ id: 'Error' });

/** The page sizes the list applies (api/query.ts clamps what it is asked to these). */
export const PAGE_LIMIT = { min: 1, max: 500, default: 100 };

export const ListQuery = z.object({
  rail: z.string().optional().meta({ description: 'x402, mpp or acp.' }),
  chain: z.string().optional().meta({ description: 'A chain name (base, solana, tempo) or its CAIP-2 id (eip155:8453).' }),
  asset: z.string().optional().meta({ description: 'An asset symbol such as USDC.' }),
  live: z.boolean().optional().meta({ description: 'true: only services that answered a payment challenge on the last check; false: the others.' }),
  q: z.string().optional().meta({ description: 'Free text over name, category, description and endpoints: every word, or "quoted phrase" as written, must occur as a substring, in any case.' }),
  limit: z.int().min(PAGE_LIMIT.min).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default)
    .meta({ description: 'Page size 1-500, default 100 (clamped; page.limit says what was applied).' }),
  offset: z.int().min(0).default(0).meta({ description: 'Services to skip, default 0. Follow page.next_offset until it is null.' }),
});

export const BatchBody = z
  .object({ ids: z.array(z.string()).min(1).meta({ description: '1-100 distinct service ids; case-insensitive; duplicates ignored.' }) })
  .meta({ id: 'BatchRequest' });

export const SubmitBody = z
  .object({
    endpoint: z.url().meta({ description: 'Absolute http(s) URL answering the payment challenge.' }),
    name: z.string().optional(),
    contact: z.string().optional().meta({ description: 'Kept private: never shown in any response.' }),
  })
  .meta({ id: 'SubmitRequest' });
