import { z } from 'zod';

/** The shapes of the facilitator directory (`GET /api/v1/facilitators`): every facilitator seen, and what it supports. */

export const FACILITATOR_SEEN_IN = ['challenge', 'directory', 'configuration'] as const;
export type FacilitatorSeenIn = (typeof FACILITATOR_SEEN_IN)[number];

export const FacilitatorKind = z.object({
  x402Version: z.int(),
  scheme: z.string(),
  network: z.string(),
}).meta({ id: 'FacilitatorKind' });
export type FacilitatorKind = z.infer<typeof FacilitatorKind>;

export const Facilitator = z.object({
  url: z.string().meta({ description: 'The facilitator base URL; its kinds are read from {url}/supported.' }),
  live: z.boolean().nullable().meta({ description: 'Whether GET {url}/supported answered its kinds on the last check; null when never checked.' }),
  last_check: z.object({ at: z.iso.datetime({ offset: true }), ok: z.boolean(), error: z.string().nullable() }).nullable(),
  kinds: z.array(FacilitatorKind).meta({ description: 'What it verifies and settles, from the last answer.' }),
  extensions: z.array(z.string()),
  services: z.int().min(0).meta({ description: 'How many listed services name it.' }),
  seen_in: z.array(z.enum(FACILITATOR_SEEN_IN)),
}).meta({ id: 'Facilitator' });
export type Facilitator = z.infer<typeof Facilitator>;

export const FacilitatorList = z.object({
  generated_at: z.iso.datetime({ offset: true }),
  facilitators: z.array(Facilitator),
}).meta({ id: 'FacilitatorList' });
export type FacilitatorList = z.infer<typeof FacilitatorList>;
