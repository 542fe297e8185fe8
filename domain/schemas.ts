import { z } from 'zod';
import { CHANGE_TYPES, ENDPOINT_SORTS, FLAG_EXPLANATIONS, FLAGS, RAILS, SORTS } from './values.ts';

/**
 * The domain's shapes, shared by `data/`, `api/`, the MCP server and `site/`, which import them from here: the single
 * source of truth for every response shape. Types come from `z.infer`, tests validate answers against these, and
 * `/openapi.json` and the MCP tools' schemas are generated from them.
 */

export {
  CHANGE_TYPES, ENDPOINT_SORTS, FLAG_EXPLANATIONS, FLAGS, RAILS, SORTS, SOURCE_KINDS, type ChangeType, type EndpointSort, type Flag, type Sort,
  type SourceKind,
} from './values.ts';

const dateTime = z.iso.datetime({ offset: true });

export const Rail = z.enum(RAILS).meta({ id: 'Rail', description: 'A payment rail.' });
export type Rail = z.infer<typeof Rail>;

export const Price = z
  .object({
    display: z.string().nullable().meta({ example: '$0.01 / call' }),
    usd: z.number().nullable().meta({ example: 0.01 }),
  })
  .meta({ id: 'Price' });
export type Price = z.infer<typeof Price>;

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
    uptime_30d: z.number().min(0).max(1).nullable()
      .meta({ description: "Share of the last 30 days' checks that detected a challenge; null when there were none." }),
    checks_30d: z.int().min(0).meta({ description: 'Checks of the main endpoint in the last 30 days.' }),
    median_latency_ms_30d: z.int().nullable()
      .meta({ description: 'Median response time of the last 30 days\' answered checks, in ms; null when none answered.' }),
    flags: z.array(z.string()).meta({
      description: `What the index observed that a bare challenge hides (flags never change live): ${FLAGS.map((flag) => `${flag}: ${FLAG_EXPLANATIONS[flag]}`).join(' ')}`,
    }),
    owner_verified: z.boolean().meta({ description: 'true when the owner of the host proved control of it.' }),
    reason: z.string().nullable()
      .meta({ description: 'Why the last probe of the main endpoint found no challenge; null when it found one or none was made.' }),
    price_range: z.object({ min_usd: z.number().nullable(), max_usd: z.number().nullable() })
      .meta({ description: "Over every endpoint's offers, in USD; both null when none is known." }),
    endpoint_count: z.int().min(0),
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
export type Probe = z.infer<typeof Probe>;

export const UptimeWindow = z
  .object({
    checks: z.int().min(0),
    detected: z.int().min(0).meta({ description: 'Checks that detected a challenge.' }),
    ratio: z.number().min(0).max(1).nullable().meta({ description: 'detected / checks; null when there were no checks.' }),
  })
  .meta({ id: 'UptimeWindow' });
export type UptimeWindow = z.infer<typeof UptimeWindow>;

/** The windows uptime is reported over, as ServiceDetail names them. */
export const UPTIME_WINDOWS = [
  { key: '24h', label: '24 h', hours: 24 },
  { key: '7d', label: '7 d', hours: 7 * 24 },
  { key: '30d', label: '30 d', hours: 30 * 24 },
] as const;

export const Uptime = z
  .object({ '24h': UptimeWindow, '7d': UptimeWindow, '30d': UptimeWindow })
  .meta({ id: 'Uptime', description: 'Checks of the main endpoint over the last 24 hours, 7 days and 30 days.' });
export type Uptime = z.infer<typeof Uptime>;

export const EndpointCheck = z
  .object({
    at: dateTime,
    ok: z.boolean().meta({ description: 'true when it answered a valid payment challenge.' }),
    status_code: z.int().nullable(),
    latency_ms: z.int().nullable(),
    reason: z.string().nullable().meta({ description: 'Why no challenge was found, when ok is false.' }),
  })
  .meta({ id: 'EndpointCheck' });
export type EndpointCheck = z.infer<typeof EndpointCheck>;

const JsonSchema = z.record(z.string(), z.unknown()).nullable()
  .meta({ description: 'JSON Schema 2020-12 (same-document refs only, at most 32 KiB); null when unknown. Third-party text.' });

export const Offer = z
  .object({
    rail: Rail,
    scheme: z.string().meta({ description: 'The x402 scheme (exact, upto, ...) or the MPP intent (charge, session, subscription).' }),
    method: z.string().nullable().meta({ description: 'The MPP payment method (tempo, stripe, ...); null for x402.' }),
    network: z.string().nullable().meta({ description: 'As the offer states it (CAIP-2 or a v1 name); null when none.' }),
    chain: z.string().nullable(),
    asset: z.object({ symbol: z.string().nullable(), address: z.string().nullable() }),
    amount: z.object({
      atomic: z.string().nullable().meta({ description: 'Base units; null when dynamic or not stated.' }),
      decimal: z.string().nullable().meta({ description: 'In whole units of the asset, when its decimals are known.' }),
    }),
    usd: z.number().nullable().meta({ description: 'The amount in US dollars, for USD assets; null otherwise.' }),
    unit: z.string().meta({ description: 'call, an MPP unitType (llm_token, ...) or a subscription period.' }),
    is_maximum: z.boolean().meta({ description: 'true when the amount is a ceiling (x402 upto).' }),
    pay_to: z.string().nullable(),
    facilitator: z.string().nullable(),
    seen_in: z.string().meta({ description: 'challenge (the last valid one: authoritative) or the directory kind.' }),
  })
  .meta({ id: 'Offer' });
export type Offer = z.infer<typeof Offer>;

export const CallInput = z
  .object({
    type: z.enum(['http', 'mcp']),
    method: z.string().nullable(),
    query: JsonSchema,
    path: JsonSchema,
    headers: JsonSchema,
    body_type: z.enum(['json', 'form-data', 'text']).nullable(),
    body: JsonSchema,
    tool: z.string().nullable().meta({ description: 'The MCP tool name, for type mcp.' }),
    example: z.object({ query: z.unknown().optional(), body: z.unknown().optional() }).nullable(),
  })
  .meta({ id: 'Input', description: 'How to call the endpoint, as its directories or its host describe it.' });
export type CallInput = z.infer<typeof CallInput>;

export const CallOutput = z
  .object({ mime_type: z.string().nullable(), schema: JsonSchema, example: z.unknown().optional() })
  .meta({ id: 'Output' });
export type CallOutput = z.infer<typeof CallOutput>;

export const Endpoint = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,99}$/)
      .meta({ description: 'Stable across crawls: made from the service id, method and URL.', example: 'api-example-com.get.v1-quote-1a2b3c4d' }),
    service_id: z.string(),
    method: z.string().nullable().meta({ description: 'The method the directories advertise; null when none does.' }),
    url: z.string(),
    route_template: z.string().nullable().meta({ description: 'The route with :params (/users/:id), or null.' }),
    description: z.string().nullable(),
    docs_url: z.string().nullable(),
    price: Price,
    offers: z.array(Offer).meta({ description: 'From the last valid challenge when there is one, else from the directories.' }),
    input: CallInput.nullable(),
    output: CallOutput.nullable(),
    tags: z.array(z.string()),
    sources: z.array(z.string()).meta({ description: 'Directories that list this endpoint.' }),
    live: z.boolean().nullable().meta({ description: 'Its last check found a challenge; null when never checked.' }),
    last_check: EndpointCheck.nullable().meta({
      description: 'The last check: the main endpoint is probed every pass, every other endpoint at most once a day; null when not yet checked.',
    }),
  })
  .meta({ id: 'Endpoint', description: 'One operation on a host; its price is its cheapest known offer.' });
export type Endpoint = z.infer<typeof Endpoint>;

export const EndpointItem = Endpoint.extend({
  service: z.object({
    id: z.string(), name: z.string(), live: z.boolean().nullable(), flags: z.array(z.string()),
    uptime_30d: z.number().min(0).max(1).nullable(),
  }),
}).meta({ id: 'EndpointItem' });
export type EndpointItem = z.infer<typeof EndpointItem>;
export const OwnerView = z
  .object({
    verified_at: dateTime.meta({ description: 'When the owner last proved control of the host.' }),
    docs_url: z.string().nullable().meta({ description: 'The documentation the owner links (https).' }),
    edited: z.array(z.enum(['name', 'description', 'category', 'main_endpoint', 'docs_url']))
      .meta({ description: 'The fields the owner set: they win over directory data.' }),
  })
  .meta({ id: 'OwnerView' });
export type OwnerView = z.infer<typeof OwnerView>;

export const ServiceDetail = Service.extend({
  source_urls: z.array(z.object({ source: z.string(), url: z.string().nullable() })),
  probes: z.array(Probe).meta({ description: 'The last 20 liveness probes, newest first.' }),
  uptime: Uptime,
  endpoints: z.array(Endpoint).meta({ description: 'Every listed endpoint of the host, the main one first.' }),
  owner: OwnerView.nullable().meta({ description: 'The verified owner of the host and what they set; null when none.' }),
}).meta({ id: 'ServiceDetail' });
export type ServiceDetail = z.infer<typeof ServiceDetail>;

const Census = z.record(z.string(), z.int());

const Counts = z.object({ total: z.int(), live: z.int(), dual_rail: z.int() });

/** Where a page of a list is, the order applied and the parameters it did not apply: every list answers it. */
export const ListPage = z.object({
  limit: z.int().min(1).max(500),
  offset: z.int().min(0),
  next_offset: z.int().nullable().meta({ description: 'null on the last page.' }),
  sort: z.enum(SORTS).meta({ description: 'The order applied.' }),
  ignored: z.array(z.string()).meta({
    description: 'The query parameters this operation does not know, sorted: they were not applied ([] when none).',
  }),
});
export type ListPage = z.infer<typeof ListPage>;

export const ServiceList = z
  .object({
    generated_at: dateTime,
    counts: Counts.meta({ description: 'Counts over every service matching the filters (not just this page).' }),
    page: ListPage,
    services: z.array(Service),
  })
  .meta({ id: 'ServiceList' });
export type ServiceList = z.infer<typeof ServiceList>;

export const EndpointList = z
  .object({
    generated_at: dateTime,
    counts: z.object({ total: z.int(), live: z.int() }).meta({ description: 'Over every endpoint matching the filters.' }),
    page: z.object({
      limit: z.int().min(1).max(500),
      offset: z.int().min(0),
      next_offset: z.int().nullable().meta({ description: 'null on the last page.' }),
      sort: z.enum(ENDPOINT_SORTS).meta({ description: 'The order applied.' }),
      ignored: z.array(z.string()).meta({ description: 'Query parameters this operation does not know, sorted.' }),
    }),
    endpoints: z.array(EndpointItem),
  })
  .meta({ id: 'EndpointList' });
export type EndpointList = z.infer<typeof EndpointList>;

export const Stats = z
  .object({
    generated_at: dateTime,
    total: z.int(),
    live: z.int(),
    probed: z.int(),
    dual_rail: z.int(),
    rails: z.int().meta({ description: 'Number of rails with at least one service.' }),
    last_probe_at: dateTime.nullable(),
    by_rail: Census.meta({ description: 'Services per rail.' }),
    by_chain: Census.meta({ description: 'Services per chain.' }),
    by_asset: Census.meta({ description: 'Services per asset symbol.' }),
  })
  .meta({ id: 'Stats' });
export type Stats = z.infer<typeof Stats>;

/** A change id: zero-padded, so ids compared as strings sort in the order the changes were made. */
export const ChangeId = z.string().regex(/^\d{12}$/).meta({ id: 'ChangeId', example: '000000000042' });

const ChangeValues = z
  .record(z.string(), z.unknown())
  .nullable()
  .meta({ description: 'The fields the change touched, as they were (before) or are (after); null when none.' });

export const Change = z
  .object({
    id: ChangeId,
    at: dateTime,
    service_id: z.string(),
    type: z.enum(CHANGE_TYPES),
    summary: z.string().meta({ description: 'One sentence for people.' }),
    before: ChangeValues,
    after: ChangeValues,
  })
  .meta({ id: 'Change' });
export type Change = z.infer<typeof Change>;

export const ChangeList = z
  .object({
    generated_at: dateTime,
    changes: z.array(Change).meta({ description: 'Oldest first, after the cursor.' }),
    next_after: ChangeId.nullable().meta({ description: 'The cursor for the next page; null on the last page.' }),
  })
  .meta({ id: 'ChangeList' });
export type ChangeList = z.infer<typeof ChangeList>;

export const BatchResult = z
  .object({
    generated_at: dateTime,
    requested: z.int().meta({ description: 'Number of distinct ids looked up.' }),
    found: z.array(Service),
    missing: z.array(z.string()).meta({ description: 'Requested ids not in the index, as sent (trimmed, first spelling of each).' }),
  })
  .meta({ id: 'BatchResult' });
export type BatchResult = z.infer<typeof BatchResult>;

const Pass = z.object({
  kind: z.enum(['discovery', 'probe', 'full']).meta({ description: '`full` is a discovery and a probe pass in one run.' }),
  status: z.enum(['running', 'finished', 'failed']),
  started_at: dateTime,
  finished_at: dateTime.nullable(),
  duration_ms: z.int().nullable().meta({ description: 'How long it ran; null while running.' }),
});

export const IndexStatus = z
  .object({
    generated_at: dateTime,
    offline: z.boolean().meta({ description: 'true when the last probe pass reached none of the services (no HTTP answer at all, leaving out the index\'s own demo services): this machine may have no internet access.' }),
    notice: z.string().nullable().meta({ description: 'A sentence for people when something needs saying (offline), else null.' }),
    probe_pass: Pass.extend({
      probed: z.int(),
      live: z.int().meta({ description: 'Probes that detected a challenge.' }),
      reached: z.int().meta({ description: 'Probes that got any HTTP answer.' }),
      outcomes: z.array(z.object({ outcome: z.string(), probes: z.int() })).meta({ description: '`challenge detected`, or the reason none was, most frequent first.' }),
    }).nullable().meta({ description: 'The newest probe pass, possibly still running; null before the first.' }),
    discovery_pass: Pass.extend({
      services: z.object({ found: z.int(), new: z.int(), updated: z.int() }).nullable(),
    }).nullable().meta({ description: 'The newest discovery pass that ended; null before the first.' }),
    directories: z.array(z.object({
      kind: z.string(),
      url: z.string(),
      endpoints: z.int(),
      error: z.string().nullable(),
    })).meta({ description: 'What each directory read of the last discovery pass gave: endpoints found, or the error.' }),
  })
  .meta({ id: 'IndexStatus' });
export type IndexStatus = z.infer<typeof IndexStatus>;

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
    message: z.string().optional()
      .meta({ description: 'Present when the answer is not what was sent, e.g. an Idempotency-Key first used with another endpoint.' }),
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
  'unauthorized',
  'conflict',
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


/** A webhook's filters and standing; the secret is answered only once, at creation (WebhookCreated). */
export const Webhook = z
  .object({
    id: z.string().meta({ example: 'wh_3k9x2m7q4t8v' }),
    url: z.string().meta({ format: 'uri' }),
    types: z.array(z.enum(CHANGE_TYPES)).meta({ description: 'The change types it hears of; empty: every type.' }),
    services: z.array(z.string()).meta({ description: 'The service ids it hears of; empty: every service.' }),
    rail: z.string().nullable().meta({ description: 'Only changes of services on this rail; null: any.' }),
    chain: z.string().nullable().meta({ description: 'Only changes of services on this chain; null: any.' }),
    asset: z.string().nullable().meta({ description: 'Only changes of services paid in this asset; null: any.' }),
    created_at: dateTime,
    status: z.enum(['active', 'disabled']),
    disabled_at: dateTime.nullable(),
    disabled_reason: z.string().nullable().meta({ description: 'Why deliveries stopped (72 hours of failures), or null.' }),
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof Webhook>;

export const WebhookCreated = Webhook.extend({
  secret: z.string().meta({
    description: 'whsec_…: verifies each delivery (Standard Webhooks) and is the bearer for this webhook\'s routes. Shown only here.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  }),
}).meta({ id: 'WebhookCreated' });
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const WebhookDelivery = z
  .object({
    id: z.string().meta({ description: 'The webhook-id header it is sent with; the same on every attempt.' }),
    at: dateTime.meta({ description: 'When it was queued.' }),
    type: z.string().meta({ description: 'The change type, or ping.' }),
    change_id: ChangeId.nullable(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.int(),
    last_attempt_at: dateTime.nullable(),
    last_status: z.int().nullable().meta({ description: 'The HTTP status of the last attempt; null when none answered.' }),
    last_error: z.string().nullable(),
    next_attempt_at: dateTime.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = z
  .object({
    generated_at: dateTime,
    deliveries: z.array(WebhookDelivery).meta({ description: 'The last 100, newest first.' }),
  })
  .meta({ id: 'WebhookDeliveryList' });
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;
