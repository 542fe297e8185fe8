/**
 * The domain's fixed vocabularies, without zod, so that code shipped to the browser (the home page's script) can use
 * them as they are; domain/schemas.ts builds the shapes on them.
 */

/** The payment rails the index covers. */
export const RAILS = ['x402', 'mpp', 'acp'] as const;
export type Rail = (typeof RAILS)[number];

/** The directories the crawler reads, highest naming priority first (crawler/dedupe.ts). */
export const SOURCE_KINDS = ['catalog', 'mpp.dev', 'bazaar', 'wellknown', 'submission', 'open402', 'acp'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Facts the index observed that a bare challenge hides; a flag never changes `live`. */
export const FLAGS = [
  'wildcard_402', 'template_url', 'extreme_price', 'price_mismatch', 'testnet_only', 'unreachable_30d', 'challenge_nonstandard',
] as const;
export type Flag = (typeof FLAGS)[number];

/**
 * The one-line explanation of each flag, for people: the listing page, the home row's marker and the docs all read
 * these, so they say the same thing.
 */
export const FLAG_EXPLANATIONS: Readonly<Record<Flag, string>> = {
  wildcard_402: 'A random path on this host answers the same 402: the challenge may not mean this endpoint exists (checked daily).',
  template_url: 'The listed endpoint is a URL template (such as /{id}): it cannot be called as written.',
  extreme_price: 'Over $100 a call.',
  price_mismatch: 'The challenge asks over 10 times more, or less, than the directory lists.',
  testnet_only: 'Every network it accepts is a testnet: no real payment can be made.',
  unreachable_30d: 'No HTTP answer for 30 days.',
  challenge_nonstandard: 'Its challenge decodes only leniently: strict clients may refuse it.',
};

/**
 * The orders a list can be read in; every one breaks ties by id. `quality` (the default) puts live first, then
 * services without flags, then 30-day uptime, then how many directories list them; `price`, `uptime` and `latency`
 * put unknown values last; `relevance` (the default with `q`) ranks the text match, then the quality keys, and
 * applies only with `q` (without it the list is read in `quality` order, and `page.sort` says so).
 */
export const SORTS = ['quality', 'live', 'price', 'uptime', 'latency', 'newest', 'relevance'] as const;
export type Sort = (typeof SORTS)[number];

/**
 * The orders of the endpoint list: `quality` (live first, unflagged services first, 30-day uptime, directories
 * listing the service, then id), `relevance` (with `q`), `price` (cheapest offer first) and `latency` (last check).
 */
export const ENDPOINT_SORTS = ['quality', 'relevance', 'price', 'latency'] as const;
export type EndpointSort = (typeof ENDPOINT_SORTS)[number];

/**
 * What a change records (DESIGN.md "Changes, feeds, webhooks, badges"): the crawler's observations (`listed` to
 * `flags_changed`), then owner and operator actions (`delisted`, `relisted`, `edited`).
 */
export const CHANGE_TYPES = [
  'listed', 'went_live', 'went_dark', 'price_changed', 'terms_changed', 'endpoints_changed', 'flags_changed',
  'delisted', 'relisted', 'edited',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];
