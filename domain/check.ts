import { z } from 'zod';
import { Offer } from './schemas.ts';

/*
 * The shapes of a seller's check (`POST /api/v1/check`): what one URL answered now, every challenge decoded with its
 * offers, every problem with a stable code, what the host publishes for discovery, and whether the index lists it.
 */

const dateTime = z.iso.datetime({ offset: true });

/** Every problem a check can report; the codes are stable (clients match on them). */
export const PROBLEM_CODES = [
  'no_challenge', 'x402_invalid_json', 'x402_missing_field', 'x402_version_mismatch', 'x402_amount_not_integer',
  'x402_unknown_network', 'x402_asset_not_usdc', 'x402_pay_to_invalid', 'x402_timeout_missing', 'x402_resource_mismatch',
  'x402_accepts_empty', 'mpp_missing_param', 'mpp_request_not_base64url', 'mpp_request_invalid', 'mpp_expired',
  'mpp_recipient_missing', 'listed_price_mismatch', 'testnet_only', 'lenient_only',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

export const Severity = z.enum(['error', 'warning', 'info']);
export type Severity = z.infer<typeof Severity>;

export const Problem = z.object({
  code: z.enum(PROBLEM_CODES),
  severity: Severity.meta({ description: 'error: no client can pay from it as written; warning: some clients refuse or misread it; info: worth knowing.' }),
  message: z.string(),
  fix: z.string(),
  where: z.string().meta({ description: 'Where it was found: the status, a header, the body, a discovery document; and the field.' }),
  rule: z.string().meta({ description: 'The rule of the specification it breaks.' }),
}).meta({ id: 'CheckProblem' });
export type Problem = z.infer<typeof Problem>;

export const CHALLENGE_SIGNALS = ['x402-v2-header', 'x402-v2-body', 'x402-v1-body', 'mpp-header'] as const;

export const CheckChallenge = z.object({
  signal: z.enum(CHALLENGE_SIGNALS),
  valid: z.boolean().meta({ description: 'Whether the index accepts it as a payment challenge.' }),
  decoded: z.unknown().meta({ description: 'The challenge as decoded (third-party text).' }),
  offers: z.array(Offer),
}).meta({ id: 'CheckChallenge' });
export type CheckChallenge = z.infer<typeof CheckChallenge>;

export const DISCOVERY_DOCUMENTS = ['x402_well_known', 'openapi', 'acp'] as const;
export type DiscoveryKind = (typeof DISCOVERY_DOCUMENTS)[number];

export const DiscoveryDocument = z.object({
  url: z.string(),
  found: z.boolean(),
  valid: z.boolean().nullable().meta({ description: 'null when not found.' }),
  detail: z.string().nullable().meta({ description: 'Why not found or not valid; null when valid.' }),
  offers: z.array(Offer.extend({ url: z.string().nullable() })).meta({ description: 'Prices it states, with the URL each is for.' }),
}).meta({ id: 'DiscoveryDocument' });
export type DiscoveryDocument = z.infer<typeof DiscoveryDocument>;

export const CheckResult = z.object({
  url: z.string(),
  checked_at: dateTime,
  status_code: z.int().nullable().meta({ description: 'null when no HTTP answer came.' }),
  latency_ms: z.int().nullable(),
  live: z.boolean().meta({ description: 'Whether it answered a challenge the index accepts (it would be listed live).' }),
  challenges: z.array(CheckChallenge),
  problems: z.array(Problem),
  discovery: z.object(Object.fromEntries(DISCOVERY_DOCUMENTS.map((kind) => [kind, DiscoveryDocument])) as Record<DiscoveryKind, typeof DiscoveryDocument>),
  listed: z.object({ service_id: z.string(), flags: z.array(z.string()), page: z.string() }).nullable()
    .meta({ description: 'The listed service of this host; null when the index does not list it (see submit).' }),
  submit: z.object({ method: z.literal('POST'), url: z.string(), body: z.object({ endpoint: z.string() }) }).nullable()
    .meta({ description: 'How to submit the host when it is not listed; null when listed.' }),
}).meta({ id: 'CheckResult' });
export type CheckResult = z.infer<typeof CheckResult>;
