/**
 * The change log (DESIGN.md "Changes, feeds, webhooks, badges"): one row per change, written in the same
 * transaction as what changed. `seq` never repeats (AUTOINCREMENT), even after old changes are pruned, so a
 * reader's cursor never skips one. `before` and `after` are JSON objects of the fields the change touched.
 */
export const up = `
CREATE TABLE changes (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  at         TEXT NOT NULL,
  service_id TEXT NOT NULL,
  type       TEXT NOT NULL CHECK (type IN ('listed', 'went_live', 'went_dark', 'price_changed', 'terms_changed',
               'endpoints_changed', 'flags_changed', 'delisted', 'relisted', 'edited')),
  summary    TEXT NOT NULL,
  before     TEXT,
  after      TEXT
);
CREATE INDEX changes_service ON changes (service_id, seq);
CREATE INDEX changes_at ON changes (at);
`;
