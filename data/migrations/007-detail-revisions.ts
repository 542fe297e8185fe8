/**
 * Each stored detail answer gets a revision, taken from one counter that only goes up at every rewrite, so a
 * process holding answers in memory (data/detail-cache.ts) can ask which services changed since it last looked,
 * whichever process wrote them. The index covers that question without reading the answers.
 */
export const up = `
CREATE TABLE detail_revision (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  value INTEGER NOT NULL
);
INSERT INTO detail_revision (id, value) VALUES (1, 0);
ALTER TABLE service_details ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
CREATE INDEX service_details_revision ON service_details (revision, service_id);
`;
