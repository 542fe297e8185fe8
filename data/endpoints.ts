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
 * The columns an Endpoint is read from; `e` the endpoint, `s` its service, `c` its check, `ch` its challenge, `p` its
 * service's newest probe when it is the main endpoint (which is probed every pass, so that probe is its check).
 */
export const ENDPOINT_COLUMNS = `e.id, e.service_id, e.method, e.url, e.route_template, e.description, e.docs_url,
  e.price_usd, e.price_display, e.listed_offers, ch.offers AS challenge_offers, e.input, e.output, e.tags, e.sources,
  e.url = s.endpoint AS is_main, s.live AS service_live, c.checked_at, c.ok, c.status_code, c.latency_ms, c.reason,
  p.probed_at AS probe_at, p.ok AS probe_ok, p.status_code AS probe_status_code, p.latency_ms AS probe_latency_ms,
  p.reason AS probe_reason`;

/** The endpoint's liveness: the main endpoint's is its service's last probe, any other's its last check. */
export const ENDPOINT_LIVE = `(CASE WHEN e.url = s.endpoint THEN s.live ELSE c.ok END)`;
/** What a search of endpoints reads, lower-cased: its description, URL and tags, its service's name and description. */
export const ENDPOINT_TEXT = `lower(coalesce(e.description, '') || ' ' || e.url || ' ' || e.tags || ' ' || s.name || ' ' || coalesce(s.description, ''))`;

/** The joins ENDPOINT_COLUMNS read from, after `FROM service_endpoints e`. */
export const ENDPOINT_JOINS = `JOIN services s ON s.id = e.service_id
  LEFT JOIN endpoint_checks c ON c.service_id = e.service_id AND c.method = coalesce(e.method, '') AND c.url = e.url
  LEFT JOIN endpoint_challenges ch ON ch.endpoint_id = e.id
  LEFT JOIN probes p ON p.id = CASE WHEN e.url = s.endpoint THEN (SELECT q.id FROM probes q WHERE q.service_id = e.service_id
    ORDER BY q.probed_at DESC, q.id DESC LIMIT 1) END`;

export interface EndpointRow {
  id: string; service_id: string; method: string | null; url: string; route_template: string | null;
  description: string | null; docs_url: string | null; price_usd: number | null; price_display: string | null;
  listed_offers: string; challenge_offers: string | null; input: string | null; output: string | null; tags: string;
  sources: string; is_main: number; service_live: number | null; checked_at: string | null; ok: number | null;
  status_code: number | null; latency_ms: number | null; reason: string | null; probe_at: string | null;
  probe_ok: number | null; probe_status_code: number | null; probe_latency_ms: number | null; probe_reason: string | null;
}

const statements = preparedOnce({
  byId: `SELECT ${ENDPOINT_COLUMNS} FROM service_endpoints e ${ENDPOINT_JOINS} WHERE e.id = ?`,
  ofService: `SELECT ${ENDPOINT_COLUMNS} FROM service_endpoints e ${ENDPOINT_JOINS} WHERE e.service_id = ? ORDER BY e.position`,
  prices: `SELECT e.id, e.price_usd, e.listed_offers, ch.offers AS challenge_offers FROM service_endpoints e
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

/** The offers that stand for an endpoint: its last valid challenge's, else its directories'. */
function standingOffers(row: { listed_offers: string; challenge_offers: string | null }): Offer[] {
  return JSON.parse(row.challenge_offers ?? row.listed_offers) as Offer[];
}

/** An endpoint row as the API answers it. */
export function toEndpoint(row: EndpointRow): Endpoint {
  const offers = standingOffers(row);
  const lastCheck = row.is_main === 1
    ? (row.probe_at === null ? null
      : { at: row.probe_at, ok: row.probe_ok === 1, status_code: row.probe_status_code, latency_ms: row.probe_latency_ms, reason: row.probe_reason })
    : row.checked_at === null
      ? null
      : { at: row.checked_at, ok: row.ok === 1, status_code: row.status_code, latency_ms: row.latency_ms, reason: row.reason };
  const live = row.is_main === 1 ? (row.service_live === null ? null : row.service_live === 1) : lastCheck === null ? null : lastCheck.ok;
  return {
    id: row.id, service_id: row.service_id, method: row.method, url: row.url, route_template: row.route_template,
    description: row.description, docs_url: row.docs_url,
    price: toEndpointPrice(offers, { usd: row.price_usd, display: row.price_display }),
    offers, input: row.input === null ? null : JSON.parse(row.input), output: row.output === null ? null : JSON.parse(row.output),
    tags: JSON.parse(row.tags), sources: JSON.parse(row.sources), live, last_check: lastCheck,
  };
}

/** One endpoint by id (lower-cased), or null. */
export function getEndpoint(db: DB, id: string): Endpoint | null {
  const row = statements(db).byId.get(id) as EndpointRow | undefined;
  return row ? toEndpoint(row) : null;
}

/** Every listed endpoint of a service, the main one first, each with its last check. */
export function listServiceEndpoints(db: DB, serviceId: string): Endpoint[] {
  return (statements(db).ofService.all(serviceId) as EndpointRow[]).map(toEndpoint);
}

/**
 * Sets each endpoint's cheapest known offer and the service's price range and endpoint count from what stands now;
 * drops challenges of endpoints no longer listed. Runs in the caller's transaction, after any write of either.
 */
export function refreshEndpointPrices(db: DB, serviceId: string): void {
  const s = statements(db);
  s.dropUnlisted.run(serviceId, serviceId);
  const rows = s.prices.all(serviceId) as Array<{ id: string; price_usd: number | null; listed_offers: string; challenge_offers: string | null }>;
  const usds: number[] = [];
  for (const row of rows) {
    const offers = standingOffers(row);
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
