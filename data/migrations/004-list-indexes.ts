/**
 * Indexes for the list's reads: the list's unfiltered order covers `dual_rail` so counts read the index
 * alone, and a service's newest probes come in index order (the `id` tie-break included) without a sort.
 */
export const up = `
DROP INDEX services_order;
CREATE INDEX services_order ON services (live_rank, id, dual_rail);
DROP INDEX probes_service_time;
CREATE INDEX probes_service_time ON probes (service_id, probed_at DESC, id DESC);
`;
