import type { Change, ChangeType, Webhook, WebhookDelivery } from '../domain/schemas.ts';
import { listChanges, toChangeId } from './changes.ts';
import { preparedOnce, type DB } from './db.ts';

/*
 * Webhook subscriptions and their delivery queue (migration 013). The worker that sends deliveries lives in
 * webhooks/; this module only reads and writes the tables.
 */

/** What a subscription asks for, as the API read it. */
export interface NewWebhook {
  id: string;
  url: string;
  secret: string;
  types: ChangeType[];
  services: string[];
  rail: string | null;
  chain: string | null;
  asset: string | null;
  /** Who created it (the client address), for the per-client limit on creating them. */
  client: string;
}

/** A delivery due to be sent, with what sending it needs. */
export interface DueDelivery {
  id: number;
  webhook_id: string;
  message_id: string;
  /** The receiver's host and port (toReceiverHost), which gets one delivery at a time. */
  host: string;
  url: string;
  secret: string;
  payload: string;
  attempts: number;
  failing_since: string | null;
}

/** The result of one attempt, as the worker records it. */
export interface Attempt {
  delivery: DueDelivery;
  at: string;
  ok: boolean;
  status: number | null;
  error: string | null;
  /** When to try again after a failure; null when delivered. */
  next_attempt_at: string | null;
  /** Set when this failure disables the subscription. */
  disable_reason: string | null;
  /** The receiver timed out: the host's other pending deliveries wait until `next_attempt_at` too. */
  holds_host: boolean;
}

interface WebhookRow {
  id: string; url: string; secret: string; types: string; services: string; rail: string | null; chain: string | null;
  asset: string | null; created_at: string; disabled_at: string | null; disabled_reason: string | null;
}

interface DeliveryRow {
  message_id: string; created_at: string; type: string; change_seq: number | null; status: WebhookDelivery['status'];
  attempts: number; last_attempt_at: string | null; last_status: number | null; last_error: string | null; next_attempt_at: string | null;
}

const statements = preparedOnce({
  insert: `INSERT INTO webhooks (id, url, secret, types, services, rail, chain, asset, client, created_at, from_seq)
    VALUES (@id, @url, @secret, @types, @services, @rail, @chain, @asset, @client, @created_at,
      (SELECT coalesce(max(seq), 0) FROM changes))`,
  byId: `SELECT id, url, secret, types, services, rail, chain, asset, created_at, disabled_at, disabled_reason
    FROM webhooks WHERE id = ?`,
  remove: `DELETE FROM webhooks WHERE id = ?`,
  deliveries: `SELECT message_id, created_at, type, change_seq, status, attempts, last_attempt_at, last_status, last_error,
      next_attempt_at FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`,
  enqueue: `INSERT INTO webhook_deliveries (webhook_id, message_id, change_seq, type, host, payload, created_at, next_attempt_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  cursor: `SELECT seq FROM webhook_fanout WHERE id = 1`,
  moveCursor: `UPDATE webhook_fanout SET seq = ? WHERE id = 1`,
  active: `SELECT id, url, types, services, rail, chain, asset, from_seq FROM webhooks WHERE disabled_at IS NULL`,
  terms: `SELECT rails, chains, assets FROM services WHERE id = ?`,
  // The first due delivery of each receiver host, oldest first across hosts (the one a host would be sent next).
  due: `SELECT d.id, d.webhook_id, d.message_id, d.host, w.url, w.secret, d.payload, d.attempts, w.failing_since
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE d.id IN (SELECT id FROM (
      SELECT q.id, row_number() OVER (PARTITION BY q.host ORDER BY q.next_attempt_at, q.id) AS place
      FROM webhook_deliveries q JOIN webhooks h ON h.id = q.webhook_id
      WHERE q.status = 'pending' AND q.next_attempt_at <= @now AND h.disabled_at IS NULL) WHERE place = 1)
    ORDER BY d.next_attempt_at, d.id LIMIT @limit`,
  delivered: `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_attempt_at = ?,
      last_status = ?, last_error = NULL, next_attempt_at = NULL WHERE id = ?`,
  failed: `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ?, last_status = ?, last_error = ?,
      next_attempt_at = ? WHERE id = ?`,
  healthy: `UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`,
  failing: `UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ?`,
  disable: `UPDATE webhooks SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL`,
  holdHost: `UPDATE webhook_deliveries SET next_attempt_at = @until
    WHERE host = @host AND status = 'pending' AND next_attempt_at < @until`,
  abandon: `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'`,
  createdSince: `SELECT count(*) AS n FROM webhooks WHERE client = ? AND created_at >= ?`,
  prune: `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ?`,
});

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id, url: row.url, types: JSON.parse(row.types), services: JSON.parse(row.services),
  rail: row.rail, chain: row.chain, asset: row.asset, created_at: row.created_at,
  status: row.disabled_at === null ? 'active' : 'disabled', disabled_at: row.disabled_at, disabled_reason: row.disabled_reason,
});

/** The host a delivery is queued under: the receiver's host and port, which gets one delivery at a time. */
export const toReceiverHost = (url: string): string => new URL(url).host;

/**
 * Stores a subscription; it hears of changes made from now on.
 * @example createWebhook(db, { id: 'wh_…', url: 'https://hooks.example.com/psi', secret: 'whsec_…', types: [], services: [], rail: null, chain: null, asset: null, client: '203.0.113.9' }, now)
 */
export function createWebhook(db: DB, hook: NewWebhook, now: string): Webhook {
  statements(db).insert.run({ ...hook, types: JSON.stringify(hook.types), services: JSON.stringify(hook.services), created_at: now });
  return getWebhook(db, hook.id)!.webhook;
}

/** A subscription and its secret (to sign with and to check a bearer against), or null. */
export function getWebhook(db: DB, id: string): { webhook: Webhook; secret: string } | null {
  const row = statements(db).byId.get(id) as WebhookRow | undefined;
  return row ? { webhook: toWebhook(row), secret: row.secret } : null;
}

/** Deletes a subscription with its queue and log. */
export function deleteWebhook(db: DB, id: string): void {
  statements(db).remove.run(id);
}

/** How many subscriptions `client` created since `since`: for the limit on creating them. */
export function countWebhooksCreatedSince(db: DB, client: string, since: string): number {
  return (statements(db).createdSince.get(client, since) as { n: number }).n;
}

/** The last `limit` deliveries of a subscription, newest first. */
export function listDeliveries(db: DB, webhookId: string, limit = 100): WebhookDelivery[] {
  const rows = statements(db).deliveries.all(webhookId, limit) as DeliveryRow[];
  return rows.map((row) => ({
    id: row.message_id, at: row.created_at, type: row.type, change_id: row.change_seq === null ? null : toChangeId(row.change_seq),
    status: row.status, attempts: row.attempts, last_attempt_at: row.last_attempt_at, last_status: row.last_status,
    last_error: row.last_error, next_attempt_at: row.next_attempt_at,
  }));
}

/** Queues a `ping` to a subscription, due now; answers it as its log shows it. */
export function queuePing(db: DB, webhook: Webhook, messageId: string, now: string): WebhookDelivery {
  const payload = JSON.stringify({ type: 'ping', timestamp: now, data: { webhook_id: webhook.id } });
  statements(db).enqueue.run(webhook.id, messageId, null, 'ping', toReceiverHost(webhook.url), payload, now, now);
  return listDeliveries(db, webhook.id, 1)[0]!;
}

interface ActiveRow { id: string; url: string; types: string; services: string; rail: string | null; chain: string | null; asset: string | null; from_seq: number }

interface Subscriber { id: string; host: string; fromSeq: number; types: Set<string>; services: Set<string>; rail: string | null; chain: string | null; asset: string | null }

/**
 * Turns up to `limit` changes after the fan-out cursor into deliveries, one per subscription that asks for it, due
 * now, and moves the cursor past them, all in one transaction: a change is queued once, whatever stops the process.
 * Answers how many changes it read (fewer than `limit`: the log is drained).
 * @example while (fanOutChanges(db, new Date().toISOString(), 500) === 500);
 */
export function fanOutChanges(db: DB, now: string, limit: number): number {
  const s = statements(db);
  return db.transaction(() => {
    const after = (s.cursor.get() as { seq: number }).seq;
    const { changes } = listChanges(db, { after: after > 0 ? toChangeId(after) : null, limit });
    if (changes.length === 0) return 0;
    const subscribers = (s.active.all() as ActiveRow[]).map(toSubscriber);
    for (const change of changes) {
      const seq = Number(change.id);
      const wanted = subscribers.filter((hook) => hook.fromSeq < seq && wants(hook, change, () => readTerms(db, change.service_id)));
      if (wanted.length === 0) continue;
      const payload = JSON.stringify({ type: change.type, timestamp: change.at, data: change });
      for (const hook of wanted) s.enqueue.run(hook.id, `msg_${change.id}_${hook.id}`, seq, change.type, hook.host, payload, now, now);
    }
    s.moveCursor.run(Number(changes[changes.length - 1]!.id));
    return changes.length;
  }).immediate();
}

const toSubscriber = (row: ActiveRow): Subscriber => ({
  id: row.id, host: toReceiverHost(row.url), fromSeq: row.from_seq, types: new Set(JSON.parse(row.types)),
  services: new Set(JSON.parse(row.services)), rail: row.rail, chain: row.chain, asset: row.asset,
});

interface Terms { rails: string[]; chains: string[]; assets: string[] }

function readTerms(db: DB, serviceId: string): Terms {
  const row = statements(db).terms.get(serviceId) as { rails: string; chains: string; assets: string } | undefined;
  if (!row) return { rails: [], chains: [], assets: [] };
  const lower = (json: string) => (JSON.parse(json) as string[]).map((value) => value.toLowerCase());
  return { rails: lower(row.rails), chains: lower(row.chains), assets: lower(row.assets) };
}

/** Whether a subscription asks for a change: its types, services, and the service's rail, chain and asset now. */
function wants(hook: Subscriber, change: Change, terms: () => Terms): boolean {
  if (hook.types.size > 0 && !hook.types.has(change.type)) return false;
  if (hook.services.size > 0 && !hook.services.has(change.service_id)) return false;
  if (hook.rail === null && hook.chain === null && hook.asset === null) return true;
  const held = terms();
  return (hook.rail === null || held.rails.includes(hook.rail))
    && (hook.chain === null || held.chains.includes(hook.chain))
    && (hook.asset === null || held.assets.includes(hook.asset));
}

/**
 * Up to `limit` deliveries due at `now`, the first of each receiver host, oldest first across hosts, of
 * subscriptions still active: what the worker may start now, one at a time per host.
 */
export function listDueDeliveries(db: DB, now: string, limit: number): DueDelivery[] {
  return statements(db).due.all({ now, limit }) as DueDelivery[];
}

/**
 * Records one attempt when it ends: a delivered one leaves the queue and clears its subscription's failing time; a
 * failed one is due again at its next attempt (with the host's other deliveries when it holds the host), and starts
 * (or continues) its subscription's failing time; one that carries a disable reason disables its subscription and
 * gives up its queue.
 */
export function recordAttempt(db: DB, attempt: Attempt): void {
  const s = statements(db);
  const { delivery } = attempt;
  db.transaction(() => {
    if (attempt.ok) {
      s.delivered.run(attempt.at, attempt.status, delivery.id);
      s.healthy.run(delivery.webhook_id);
      return;
    }
    s.failed.run(attempt.at, attempt.status, attempt.error, attempt.next_attempt_at, delivery.id);
    s.failing.run(attempt.at, delivery.webhook_id);
    if (attempt.holds_host) s.holdHost.run({ host: delivery.host, until: attempt.next_attempt_at });
    if (attempt.disable_reason !== null) {
      s.disable.run(attempt.at, attempt.disable_reason, delivery.webhook_id);
      s.abandon.run(delivery.webhook_id);
    }
  }).immediate();
}

/** Drops finished deliveries (delivered or given up) queued before `before`: the log keeps what is recent. */
export function pruneDeliveries(db: DB, before: string): number {
  return statements(db).prune.run(before).changes;
}
