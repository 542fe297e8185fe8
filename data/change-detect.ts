import { isDeepStrictEqual } from 'node:util';
import type { NewChange } from './changes.ts';

/**
 * What the change log watches of one service, as stored before and after a write. Pure comparisons: the writers
 * (data/services.ts, data/probes.ts) read a state before and after what they write and record what these find, in
 * the same transaction.
 */
export interface ServiceState {
  name: string;
  endpoint: string;
  live: boolean | null;
  price: { usd: number | null; display: string | null };
  rails: string[];
  chains: string[];
  assets: string[];
  facilitator: string | null;
  flags: string[];
  /** `METHOD url` of every listed endpoint; absent when the writer cannot change them (a probe). */
  endpoints?: string[];
}

const TERMS = ['rails', 'chains', 'assets', 'facilitator'] as const;

/**
 * The changes between two states of one service at `at`, in the order a reader would tell them: listed (a new
 * service, and nothing else), then liveness, price, terms, endpoints and flags. Equal states give none.
 * @example detectChanges('api-example-com', before, after, '2026-11-25T12:00:00.000Z') // [{ type: 'went_live', ... }]
 */
export function detectChanges(serviceId: string, before: ServiceState | null, after: ServiceState, at: string): NewChange[] {
  const base = { at, service_id: serviceId };
  if (before === null) return [{ ...base, ...listed(after) }];
  const found = [liveness(before, after), price(before, after), terms(before, after), endpoints(before, after), flags(before, after)];
  return found.filter((change) => change !== null).map((change) => ({ ...base, ...change }));
}

type Found = Pick<NewChange, 'type' | 'summary' | 'before' | 'after'> | null;

function listed(after: ServiceState): NonNullable<Found> {
  const rails = after.rails.length > 0 ? ` on ${after.rails.join(' and ')}` : '';
  return {
    type: 'listed',
    summary: `${after.name} was listed${rails} at ${after.endpoint}.`,
    before: null,
    after: { name: after.name, endpoint: after.endpoint, rails: after.rails, price: after.price },
  };
}

/** Live from anything else is `went_live`; live to not live is `went_dark`. A first probe that finds nothing is no change. */
function liveness(before: ServiceState, after: ServiceState): Found {
  if (after.live === true && before.live !== true) {
    return { type: 'went_live', summary: `${after.name} went live: its endpoint answers a payment challenge.`, before: { live: before.live }, after: { live: true } };
  }
  if (before.live === true && after.live !== true) {
    return { type: 'went_dark', summary: `${after.name} went dark: its endpoint no longer answers a payment challenge.`, before: { live: true }, after: { live: after.live } };
  }
  return null;
}

/** A price changes with its dollar amount; the wording of one amount (`$0.01` or `$0.01 / call`) is no change. */
function price(before: ServiceState, after: ServiceState): Found {
  const same = before.price.usd !== null || after.price.usd !== null
    ? before.price.usd === after.price.usd
    : before.price.display === after.price.display;
  if (same) return null;
  return {
    type: 'price_changed',
    summary: `${after.name} changed its price from ${describePrice(before.price)} to ${describePrice(after.price)}.`,
    before: { price: before.price },
    after: { price: after.price },
  };
}

function terms(before: ServiceState, after: ServiceState): Found {
  const changed = TERMS.filter((field) => !isDeepStrictEqual(before[field], after[field]));
  if (changed.length === 0) return null;
  const pick = (state: ServiceState) => Object.fromEntries(changed.map((field) => [field, state[field]]));
  const told = changed.map((field) => `${field} ${describeTerm(before[field])} to ${describeTerm(after[field])}`);
  return { type: 'terms_changed', summary: `${after.name} changed its ${joinWords(told)}.`, before: pick(before), after: pick(after) };
}

function endpoints(before: ServiceState, after: ServiceState): Found {
  if (!before.endpoints || !after.endpoints || isDeepStrictEqual(before.endpoints, after.endpoints)) return null;
  const added = after.endpoints.filter((e) => !before.endpoints!.includes(e));
  const removed = before.endpoints.filter((e) => !after.endpoints!.includes(e));
  const parts = [added.length > 0 ? `${added.length} added` : '', removed.length > 0 ? `${removed.length} removed` : ''].filter(Boolean);
  const how = parts.length > 0 ? joinWords(parts) : 'reordered';
  return {
    type: 'endpoints_changed',
    summary: `${after.name} now lists ${after.endpoints.length} endpoint${after.endpoints.length === 1 ? '' : 's'} (${how}).`,
    before: { endpoints: before.endpoints },
    after: { endpoints: after.endpoints },
  };
}

function flags(before: ServiceState, after: ServiceState): Found {
  const held = [...before.flags].sort();
  const now = [...after.flags].sort();
  if (isDeepStrictEqual(held, now)) return null;
  const raised = now.filter((flag) => !held.includes(flag));
  const cleared = held.filter((flag) => !now.includes(flag));
  const parts = [raised.length > 0 ? `flagged ${raised.join(', ')}` : '', cleared.length > 0 ? `cleared of ${cleared.join(', ')}` : ''];
  return { type: 'flags_changed', summary: `${after.name} was ${joinWords(parts.filter(Boolean))}.`, before: { flags: held }, after: { flags: now } };
}

function describePrice(price: ServiceState['price']): string {
  if (price.display) return price.display;
  return price.usd === null ? 'unknown' : `$${price.usd}`;
}

function describeTerm(value: string | string[] | null): string {
  if (Array.isArray(value)) return value.length > 0 ? value.join(', ') : 'none';
  return value ?? 'none';
}

function joinWords(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join('; ')} and ${parts[parts.length - 1]}`;
}
