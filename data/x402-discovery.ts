/**
 * The index as an x402 Bazaar (`/x402/discovery/resources`, `/x402/discovery/search`): every x402 endpoint whose last
 * check found a valid challenge, with that challenge's `accepts` as stated, filtered as the discovery API filters
 * (`type`, `payTo`, `scheme`, `network`, `extensions`) and by the words of a search; in id order, so offset paging is
 * stable. The answer's shapes are made in api/operations/x402-discovery.ts.
 */
import { toCaip2, toChainName } from '../domain/chains.ts';
import type { Endpoint } from '../domain/schemas.ts';
import { cachedStatement, type DB } from './db.ts';
import { ENDPOINT_COLUMNS, ENDPOINT_JOINS, ENDPOINT_TEXT, readMainCheck, toEndpoint, type EndpointRow } from './endpoints.ts';
import { toWords } from './search.ts';

export interface DiscoveryFilters {
  type?: string;
  payTo?: string;
  scheme?: string;
  network?: string;
  extensions?: string;
  query?: string;
}

/** One listed resource: its endpoint record, its challenge as stated and when, and its service's name. */
export interface DiscoveredResource {
  endpoint: Endpoint;
  x402Version: number;
  accepts: Array<Record<string, unknown>>;
  lastUpdated: string;
  serviceName: string;
}

const acceptsTest = (path: string, values: number) =>
  `EXISTS (SELECT 1 FROM json_each(ch.accepts) a WHERE lower(json_extract(a.value, '${path}')) IN (${Array(values).fill('?').join(', ')}))`;

/** Where a network filter matches: as given, as its CAIP-2 id and as the index's chain name (v1 names are those). */
function networkNames(network: string): string[] {
  const chain = toChainName(network).toLowerCase();
  return [...new Set([network.toLowerCase(), chain, toCaip2(chain)?.toLowerCase() ?? chain])];
}

function toWhere(filters: DiscoveryFilters): { sql: string[]; params: unknown[] } {
  const sql = ['ch.accepts IS NOT NULL', 'e.live = 1'];
  const params: unknown[] = [];
  if (filters.type !== undefined && filters.type.toLowerCase() !== 'http') sql.push('0');
  if (filters.extensions !== undefined) sql.push(filters.extensions.toLowerCase() === 'bazaar' ? 'e.input IS NOT NULL' : '0');
  if (filters.payTo !== undefined) {
    sql.push(acceptsTest('$.payTo', 1));
    params.push(filters.payTo.toLowerCase());
  }
  if (filters.scheme !== undefined) {
    sql.push(acceptsTest('$.scheme', 1));
    params.push(filters.scheme.toLowerCase());
  }
  if (filters.network !== undefined) {
    const names = networkNames(filters.network);
    sql.push(acceptsTest('$.network', names.length));
    params.push(...names);
  }
  for (const word of filters.query ? toWords(filters.query) : []) {
    sql.push(`instr(${ENDPOINT_TEXT}, ?) > 0`);
    params.push(word);
  }
  return { sql, params };
}

/**
 * A page of the discovered resources and how many match.
 * @example listDiscoveredResources(db, { scheme: 'exact' }, { limit: 20, offset: 0 })
 */
export function listDiscoveredResources(db: DB, filters: DiscoveryFilters, page: { limit: number; offset: number }): {
  total: number; resources: DiscoveredResource[];
} {
  const where = toWhere(filters);
  const from = `FROM service_endpoints e ${ENDPOINT_JOINS} WHERE ${where.sql.join(' AND ')}`;
  const total = cachedStatement(db, `SELECT count(*) ${from}`).pluck().get(...where.params) as number;
  const rows = cachedStatement(db, `SELECT ${ENDPOINT_COLUMNS}, ch.x402_version, ch.accepts, ch.seen_at, s.name AS service_name
    ${from} ORDER BY e.id LIMIT ? OFFSET ?`).all(...where.params, page.limit, page.offset) as Array<EndpointRow & {
      x402_version: number; accepts: string; seen_at: string; service_name: string;
    }>;
  return {
    total,
    resources: rows.map((row) => ({
      endpoint: toEndpoint(row, row.is_main === 1 ? readMainCheck(db, row.service_id) : null),
      x402Version: row.x402_version,
      accepts: JSON.parse(row.accepts),
      lastUpdated: row.seen_at,
      serviceName: row.service_name,
    })),
  };
}
