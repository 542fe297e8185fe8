import type { CallInput, CallOutput, Flag, Offer, Rail } from '../domain/schemas.ts';

export type { Rail };

/** A price as the index shows it: `$0.01 / call` and 0.01, or both null when unknown or dynamic. */
export interface Price {
  usd: number | null;
  display: string | null;
}

/** One resource a host lists (a path or full URL), as found in a directory. */
export interface EndpointInput {
  url: string;
  method: string | null;
  description: string | null;
  price: Price;
  rails: Rail[];
  chains: string[];
  assets: string[];
  /** An example request body the directory gives (validation-first servers need one before their 402). */
  example_body?: unknown;
  /** The directory kinds that list it; when absent, those of its service. */
  sources?: string[];
  /** The route with `:params` the directory gives (Bazaar v2 `routeTemplate`, an mpp.dev path). */
  route_template?: string | null;
  docs_url?: string | null;
  tags?: string[];
  /** The offers its directories state; the last valid challenge's replace them where there is one (data/endpoints.ts). */
  offers?: Offer[];
  /** How to call it and what it answers, when the directory says (crawler/call-input.ts). */
  input?: CallInput | null;
  output?: CallOutput | null;
}

/** Where a service was found: the directory kind and, when known, the URL of its listing there. */
export interface SourceRef {
  source: string;
  url: string | null;
}

/**
 * One service (one host) as the crawler or the seed hands it to `data/`.
 * Terms (rails, chains, assets) are the union over its endpoints; `endpoint` is the main one, the one probed.
 */
export interface ServiceInput {
  id: string;
  name: string;
  category: string | null;
  description: string | null;
  endpoint: string;
  facilitator: string | null;
  price: Price;
  rails: Rail[];
  chains: string[];
  assets: string[];
  sources: SourceRef[];
  endpoints: EndpointInput[];
}

/** An x402 challenge's `accepts` as it stated them, with its version: what a Bazaar client reads (/x402/discovery). */
export interface StatedAccepts {
  x402Version: 1 | 2;
  accepts: Array<Record<string, unknown>>;
}

/** What a valid challenge of one endpoint states beyond its terms: every offer, and its x402 accepts as stated. */
export interface ChallengeRecord {
  offers?: Offer[];
  x402?: StatedAccepts;
}

/** The terms a live challenge states: authoritative over what directories list; the record is the main endpoint's. */
export type ServiceTerms = Pick<ServiceInput, 'rails' | 'chains' | 'assets' | 'price'> & ChallengeRecord;

/** What the prober records for one check of a main endpoint. */
export interface ProbeInput {
  service_id: string;
  probed_at: string;
  ok: boolean;
  status_code: number | null;
  method: string | null;
  latency_ms: number | null;
  /** Short reason a person understands, when not ok. */
  reason: string | null;
  /** Rails detected in the challenge, when ok. */
  detected_rails: Rail[];
  /** The terms the challenge states, when ok: they become the service's own (`applyServiceTerms`). */
  terms?: ServiceTerms | null;
  /** The service's flags as the crawler observed them with this probe; absent: left as they are. */
  flags?: Flag[];
}

/** The check of one listed endpoint other than the main one (`method` '' when the directory gives none). */
export interface EndpointCheckInput {
  service_id: string;
  method: string;
  url: string;
  checked_at: string;
  ok: boolean;
  status_code: number | null;
  latency_ms: number | null;
  reason: string | null;
  /** What its challenge stated, when it found a valid one. */
  challenge?: ChallengeRecord;
}

/** The daily check of a random sibling path of a service's host: whether it answered the same 402. */
export interface WildcardCheckInput {
  service_id: string;
  checked_at: string;
  url: string;
  status_code: number | null;
  same_402: boolean;
}
