/**
 * The lists' default order, `quality` (data/quality.ts): live first, unflagged before flagged, 30-day uptime highest
 * first (unknown last), most directories first, then id. One index holds that order, its keys written as the ORDER BY
 * writes them, so a page reads LIMIT rows of it at any size of the index.
 *
 * Services whose directory name is a bare protocol word are named by their host in every answer (domain/names.ts):
 * stored detail answers are dropped, assembled on the spot until each service's next write.
 */
export const up = `
DELETE FROM service_details;

CREATE INDEX services_quality ON services (
  live_rank, flags <> '[]', uptime_30d IS NULL, uptime_30d DESC, json_array_length(sources) DESC, id
);
`;
