/**
 * What the index as an x402 Bazaar (data/x402-discovery.ts) walks to list and count its resources without reading an
 * endpoint's row (wide with schemas and offers) or a challenge's (its offers and accepts as JSON):
 * - `endpoint_challenges_listed`: the endpoints whose challenge stated x402 `accepts`, in endpoint id order;
 * - `service_endpoints_listing`: each endpoint's liveness and its `search_rowid` by id, from which its kept search
 *   texts (migration 022) are found;
 * - `service_endpoints_with_input`: the endpoints with an input description (their `extensions.bazaar`), by id.
 */
export const up = `
CREATE INDEX endpoint_challenges_listed ON endpoint_challenges (endpoint_id) WHERE accepts IS NOT NULL;
CREATE INDEX service_endpoints_listing ON service_endpoints (id, live, search_rowid);
CREATE INDEX service_endpoints_with_input ON service_endpoints (id) WHERE input IS NOT NULL;
`;
