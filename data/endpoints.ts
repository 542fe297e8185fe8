import { toEndpointPrice } from '../domain/offers.ts';
import type { Endpoint, Offer } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';
import type { ChallengeRecord } from './types.ts';

/*
 * Endpoint records (DESIGN.md "Endpoints: what agents choose and call"): one row of `service_endpoints` each, with the
 * offers of its last valid challenge (`endpoint_challenges`) replacing those its directories list while they stand.
 * The cheapest known offer of each endpoint (`min_usd`) and each service's price range are kept on the rows, so the
 * lists filter and sort by them without reading any offer; every write of endpoints or challenges refreshes them here.
 */

/**
 * The columns an Endpoint is read from, in EndpointRow's order; `e` the endpoint, `s` its service, `ch` its challenge,
 * and its last check: `p`, its service's newest probe, when it is the main endpoint (which is probed every pass, so
 * that probe is its check), else `c`, its own check (ENDPOINT_JOINS joins one of the two).
 */
export const ENDPOINT_COLUMNS = `e.id, e.service_id, e.method, e.url, e.route_template, e.description, e.docs_url,
  e.price_usd, e.price_display, coalesce(ch.offers, e.listed_offers), e.input, e.output, e.tags, e.sources,
  e.url = s.endpoint, s.live, coalesce(p.probed_at, c.checked_at), coalesce(p.ok, c.ok),
  coalesce(p.status_code, c.status_code), coalesce(p.latency_ms, c.latency_ms), coalesce(p.reason, c.reason)`;

/** The endpoint's liveness: the main endpoint's is its service's last probe, any other's its last check. */
export const ENDPOINT_LIVE = `(CASE WHEN e.url = s.endpoint THEN s.live ELSE c.ok END)`;
/** What a search of endpoints reads, lower-cased: its description, URL and tags, its service's name and description. */
export const ENDPOINT_TEXT = `lower(coalesce(e.description, '') || ' ' || e.url || ' ' || e.tags || ' ' || s.name || ' ' || coalesce(s.description, ''))`;

/** The joins ENDPOINT_COLUMNS read from, after `FROM service_endpoints e`. */
export const ENDPOINT_JOINS = `JOIN services s ON s.id = e.service_id
  LEFT JOIN endpoint_checks c ON e.url IS NOT s.endpoint
    AND c.service_id = e.service_id AND c.method = coalesce(e.method, '') AND c.url = e.url
  LEFT JOIN endpoint_challenges ch ON ch.endpoint_id = e.id
  LEFT JOIN probes p ON p.id = CASE WHEN e.url = s.endpoint THEN (SELECT q.id FROM probes q WHERE q.service_id = e.service_id
    ORDER BY q.probed_at DESC, q.id DESC LIMIT 1) END`;

/**
 * An endpoint as ENDPOINT_COLUMNS read it: a row's values in order, read with `raw()` (naming each row's columns in an
 * object took better-sqlite3 a quarter of a page's read). `offers` are the standing ones: its last valid challenge's,
 * else its directories' (JSON Offer[]).
 */
export type EndpointRow = [
  id: string, service_id: string, method: string | null, url: string, route_template: string | null,
  description: string | null, docs_url: string | null, price_usd: number | null, price_display: string | null,
  offers: string, input: string | null, output: string | null, tags: string, sources: string,
  is_main: number | null, service_live: number | null, checked_at: string | null, ok: number | null,
  status_code: number | null, latency_ms: number | null, reason: string | null,
];

const statements = preparedOnce({
  byId: `SELECT ${ENDPOINT_COLUMNS} FROM service_endpoints e ${ENDPOINT_JOINS} WHERE e.id = ?`,
  ofService: `SELECT ${ENDPOINT_COLUMNS} FROM service_endpoints e ${ENDPOINT_JOINS} WHERE e.service_id = ? ORDER BY e.position`,
  prices: `SELECT e.id, e.price_usd, coalesce(ch.offers, e.listed_offers) AS offers FROM service_endpoints e
    LEFT JOIN endpoint_challenges ch ON ch.endpoint_id = e.id WHERE e.service_id = ?`,
  setMin: `UPDATE service_endpoints SET min_usd = ? WHERE id = ? AND min_usd IS NOT ?`,
  setRange: `UPDATE services SET min_price_usd = @min, max_price_usd = @max, endpoint_count = @count WHERE id = @id
    AND (min_price_usd IS NOT @min OR max_price_usd IS NOT @max OR endpoint_count IS NOT @count)`,
  mainId: `SELECT e.id FROM service_endpoints e JOIN services s ON s.id = e.service_id
    WHERE e.service_id = ? AND e.url = s.endpoint ORDER BY e.position LIMIT 1`,
  idOf: `SELECT id FROM service_endpoints WHERE service_id = ? AND coalesce(method, '') = ? AND url = ?`,
  writeChallenge: `INSERT INTO endpoint_challenges (endpoint_id, service_id, seen_at, offers, x402_version, accepts)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (endpoint_id) DO UPDATE SET seen_at = excluded.seen_at, offers = excluded.offers,
      x402_version = excluded.x402_version, accepts = excluded.accepts
    WHERE excluded.seen_at >= endpoint_challenges.seen_at`,
  dropUnlisted: `DELETE FROM endpoint_challenges WHERE service_id = ?
    AND endpoint_id NOT IN (SELECT id FROM service_endpoints WHERE service_id = ?)`,
});

/** An endpoint row as the API answers it. */
export function toEndpoint(row: EndpointRow): Endpoint {
  const [id, service_id, method, url, route_template, description, docs_url, price_usd, price_display, offersJson, input,
    output, tags, sources, is_main, service_live, checked_at, ok, status_code, latency_ms, reason] = row;
  const offers = JSON.parse(offersJson) as Offer[];
  const last_check = checked_at === null ? null : { at: checked_at, ok: ok === 1, status_code, latency_ms, reason };
  const live = is_main === 1 ? (service_live === null ? null : service_live === 1) : last_check === null ? null : last_check.ok;
  return {
    id, service_id, method, url, route_template, description, docs_url,
    price: toEndpointPrice(offers, { usd: price_usd, display: price_display }),
    offers, input: input === null ? null : JSON.parse(input), output: output === null ? null : JSON.parse(output),
    tags: JSON.parse(tags), sources: JSON.parse(sources), live, last_check,
  };
}

/** One endpoint by id (lower-cased), or null. */
export function getEndpoint(db: DB, id: string): Endpoint | null {
  const row = statements(db).byId.raw().get(id) as EndpointRow | undefined;
  return row ? toEndpoint(row) : null;
}

/** Every listed endpoint of a service, the main one first, each with its last check. */
export function listServiceEndpoints(db: DB, serviceId: string): Endpoint[] {
  return (statements(db).ofService.raw().all(serviceId) as EndpointRow[]).map(toEndpoint);
}

/**
 * Sets each endpoint's cheapest known offer and the service's price range and endpoint count from what stands now;
 * drops challenges of endpoints no longer listed. Runs in the caller's transaction, after any write of either.
 */
export function refreshEndpointPrices(db: DB, serviceId: string): void {
  const s = statements(db);
  s.dropUnlisted.run(serviceId, serviceId);
  const rows = s.prices.all(serviceId) as Array<{ id: string; price_usd: number | null; offers: string }>;
  const usds: number[] = [];
  for (const row of rows) {
    const offers = JSON.parse(row.offers) as Offer[];
    const known = offers.flatMap((offer) => (offer.usd === null ? [] : [offer.usd]));
    const own = known.length > 0 ? known : row.price_usd === null ? [] : [row.price_usd];
    usds.push(...own);
    s.setMin.run(own.length > 0 ? Math.min(...own) : null, row.id, own.length > 0 ? Math.min(...own) : null);
  }
  s.setRange.run({
    id: serviceId, count: rows.length,
    min: usds.length > 0 ? Math.min(...usds) : null, max: usds.length > 0 ? Math.max(...usds) : null,
  });
}

/**
 * Records what a valid challenge stated: of the endpoint listed with `method` ('' when none) and `url`, or of the
 * service's main endpoint when `method` is null. Answers whether an endpoint took it. Runs in the caller's
 * transaction, which re-renders the service's detail.
 */
export function recordChallenge(
  db: DB,
  challenge: ChallengeRecord & { service_id: string; method: string | null; url?: string; at: string },
): boolean {
  const s = statements(db);
  const id = (challenge.method === null
    ? s.mainId.pluck().get(challenge.service_id)
    : s.idOf.pluck().get(challenge.service_id, challenge.method, challenge.url)) as string | undefined;
  if (id === undefined) return false;
  const { x402 } = challenge;
  s.writeChallenge.run(id, challenge.service_id, challenge.at, JSON.stringify(challenge.offers ?? []),
    x402?.x402Version ?? null, x402 ? JSON.stringify(x402.accepts) : null);
  refreshEndpointPrices(db, challenge.service_id);
  return true;
}
