/**
 * The probes of one pass read by time (`/status`, `GET /api/v1/status`, the offline notice on the home page:
 * data/crawl-status.ts), without reading the whole table.
 */
export const up = `
CREATE INDEX probes_time ON probes (probed_at);
`;
