/*
 * The limits of the host lookups for submitted endpoints and webhook receivers (api/lookup-gate.ts), apart from the
 * gate itself: the webhook declaration states the time limit to clients, and a declaration imports no resolver.
 */

/** A submitted or receiver host's lookup is awaited at most this long; after it the host is taken as unresolved. */
export const SUBMIT_LOOKUP_TIMEOUT_MS = 2_000;
/** Lookups running at once for one client, and in all. */
export const SUBMIT_LOOKUPS_PER_CLIENT = 4;
export const SUBMIT_LOOKUPS_IN_ALL = 16;
