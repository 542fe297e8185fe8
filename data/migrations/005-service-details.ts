/**
 * Each service's detail answer kept as JSON text beside it (data/service-detail.ts), so a lookup reads one row
 * instead of assembling the service, its listings and its 20 newest probes from some 25 rows.
 */
export const up = `
CREATE TABLE service_details (
  service_id TEXT PRIMARY KEY REFERENCES services (id) ON DELETE CASCADE,
  body       TEXT NOT NULL, -- JSON: the ServiceDetail answer
  digest     TEXT NOT NULL  -- data/digest.ts of body, for its ETag
);
`;
