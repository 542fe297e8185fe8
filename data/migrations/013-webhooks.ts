/**
 * Webhooks (DESIGN.md "Changes, feeds, webhooks, badges"): subscriptions, the delivery queue and its log.
 * - `secret` is the whsec_ secret itself: signing (HMAC-SHA256) needs it, so it is kept, never answered again, and
 *   a bearer is compared with it in constant time.
 * - `from_seq`: a subscription hears of changes made after it was created. `failing_since` is when its deliveries
 *   began failing (cleared by any success); 72 hours of that disable it with `disabled_reason`.
 * - A delivery stays `pending` until a 2xx is recorded, so a kill at any point re-sends it (at least once); `host` is
 *   the receiver's host, which gets one delivery at a time.
 * - `webhook_fanout` holds the last change turned into deliveries: the fan-out and its cursor move in one transaction.
 */
export const up = `
CREATE TABLE webhooks (
  id              TEXT PRIMARY KEY,
  url             TEXT NOT NULL,
  secret          TEXT NOT NULL,
  types           TEXT NOT NULL DEFAULT '[]',
  services        TEXT NOT NULL DEFAULT '[]',
  rail            TEXT,
  chain           TEXT,
  asset           TEXT,
  client          TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  from_seq        INTEGER NOT NULL,
  failing_since   TEXT,
  disabled_at     TEXT,
  disabled_reason TEXT
);
CREATE TABLE webhook_deliveries (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  message_id      TEXT NOT NULL,
  change_seq      INTEGER,
  type            TEXT NOT NULL,
  host            TEXT NOT NULL,
  payload         TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      TEXT NOT NULL,
  next_attempt_at TEXT,
  last_attempt_at TEXT,
  last_status     INTEGER,
  last_error      TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (host, next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, id);
CREATE TABLE webhook_fanout (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL
);
INSERT INTO webhook_fanout (id, seq) SELECT 1, coalesce(max(seq), 0) FROM changes;
`;
