/**
 * Each stored detail answer gets a revision, taken from one counter for the whole table at every rewrite, so a
 * process holding answers in memory (data/detail-cache.ts) can ask which services changed since it last looked,
 * whichever process wrote them.
 */
export const up = `
ALTER TABLE service_details ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
CREATE INDEX service_details_revision ON service_details (revision);
`;
