/**
 * Facilitators the index has seen (in challenges, directories or its own configuration) and the last answer of each
 * one's `GET /supported`: public data, read by `GET /api/v1/facilitators` and the page `/facilitators`.
 * `kinds` and `extensions` are JSON arrays, kept from the last check that answered.
 */
export const up = `
CREATE TABLE facilitators (
  url         TEXT PRIMARY KEY,
  seen_in     TEXT NOT NULL DEFAULT '[]',
  first_seen  TEXT NOT NULL,
  checked_at  TEXT,
  live        INTEGER,
  error       TEXT,
  kinds       TEXT NOT NULL DEFAULT '[]',
  extensions  TEXT NOT NULL DEFAULT '[]'
);
`;
