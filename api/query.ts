import type { ServiceFilters, ServicePage } from '../data/service-list.ts';
import { toChainName } from '../crawler/normalize.ts';
import { PAGE_LIMIT } from './schemas.ts';

type QueryValue = string | string[] | undefined;

/**
 * Paging as applied: limit below 1 -> 1, above 500 -> 500, not a number -> 100; offset below 0 or not a number -> 0.
 * @example toPage({ limit: '9999' }) // { limit: 500, offset: 0 }
 */
export function toPage(query: { limit?: QueryValue; offset?: QueryValue }): ServicePage {
  const limit = toInteger(query.limit);
  const offset = toInteger(query.offset);
  return {
    limit: limit === null ? PAGE_LIMIT.default : Math.min(PAGE_LIMIT.max, Math.max(PAGE_LIMIT.min, limit)),
    offset: offset === null ? 0 : Math.max(0, offset),
  };
}

/**
 * The list filters, normalized: case-insensitive, `chain` by name or CAIP-2 id, `live` as a boolean.
 * An unrecognised `live` value is ignored; unknown rail, chain or asset values simply match nothing.
 * @example toFilters({ chain: 'eip155:8453', live: 'TRUE' }) // { chain: 'base', live: true }
 */
export function toFilters(query: Record<string, QueryValue>): ServiceFilters {
  const filters: ServiceFilters = {};
  const rail = first(query.rail);
  const chain = first(query.chain);
  const asset = first(query.asset);
  const live = first(query.live)?.toLowerCase();
  const q = first(query.q);
  if (rail) filters.rail = rail.toLowerCase();
  if (chain) filters.chain = toChainName(chain).toLowerCase();
  if (asset) filters.asset = asset.toLowerCase();
  if (live === 'true' || live === '1') filters.live = true;
  if (live === 'false' || live === '0') filters.live = false;
  // Control characters are no search terms (and a NUL would end SQLite's full-text query string early).
  const words = q?.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (words) filters.q = words.slice(0, 200);
  return filters;
}

function first(value: QueryValue): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined ? undefined : text.trim();
}

function toInteger(value: QueryValue): number | null {
  const text = first(value);
  if (!text || !/^-?\d+$/.test(text)) return null;
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : Math.sign(number) * Number.MAX_SAFE_INTEGER;
}
