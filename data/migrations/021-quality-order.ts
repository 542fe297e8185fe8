/**
 * The list's default order, `quality` (data/service-list.ts ORDERS): live first, unflagged before flagged, 30-day
 * uptime highest first (unknown last), most directories first, then id. One index holds that order, its keys written
 * as the ORDER BY writes them, so a page reads LIMIT rows of it at any size of the index.
 */
export const up = `
CREATE INDEX services_quality ON services (
  live_rank, flags <> '[]', uptime_30d IS NULL, uptime_30d DESC, json_array_length(sources) DESC, id
);
`;
