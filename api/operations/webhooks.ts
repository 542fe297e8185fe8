import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { assertPublicUrl, TargetError, toHostAddress, type AllowList } from '../../net/guard.ts';
import {
  countWebhooksCreatedSince, createWebhook, deleteWebhook, getWebhook, listDeliveries, queuePing,
} from '../../data/webhooks.ts';
import type { Webhook, WebhookCreated, WebhookDeliveryList } from '../../domain/schemas.ts';
import type { AppDeps } from '../app.ts';
import { digestSecret, matchesDigest, readBearer } from '../bearer.ts';
import {
  createWebhookDeclaration, deleteWebhookDeclaration, getWebhookDeclaration, listWebhookDeliveriesDeclaration,
  testWebhookDeclaration, WEBHOOKS_PER_CLIENT_HOUR,
} from '../declarations/webhooks.ts';
import { apiError } from '../errors.ts';
import { JsonReply } from '../http.ts';
import { appLookupGate } from '../lookup-gate.ts';
import { defineOperation } from '../operation.ts';

/**
 * Webhooks' handlers (the subscription's contract: api/declarations/webhooks.ts). Sending is the delivery worker's
 * (webhooks/), which the server runs beside it.
 */

const NO_STORE = { 'cache-control': 'no-store' };

export const createWebhookOperation = defineOperation(createWebhookDeclaration, async ({ body }, context) => {
  const { deps } = context;
  const now = deps.now();
  admitCreation(deps, context.client ?? 'unknown', now);
  const url = await toReceiverUrl(body.url, deps, context.client ?? 'unknown');
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const webhook = createWebhook(deps.db, {
    id: `wh_${randomBytes(9).toString('base64url')}`, url, secret, types: [...new Set(body.types ?? [])],
    services: [...new Set(body.services ?? [])], rail: body.rail ?? null, chain: body.chain ?? null, asset: body.asset ?? null,
    client: context.client ?? 'unknown',
  }, now.toISOString());
  return new JsonReply(201, NO_STORE, { ...webhook, secret } satisfies WebhookCreated);
});

export const getWebhookOperation = defineOperation(getWebhookDeclaration, ({ path, headers }, { deps }) => new JsonReply(200, NO_STORE, authorize(deps, path.id, headers.authorization)));

export const deleteWebhookOperation = defineOperation(deleteWebhookDeclaration, ({ path, headers }, { deps }) => {
  const webhook = authorize(deps, path.id, headers.authorization);
  deleteWebhook(deps.db, webhook.id);
  return new JsonReply(200, NO_STORE, { ok: true, id: webhook.id });
});

export const listWebhookDeliveriesOperation = defineOperation(listWebhookDeliveriesDeclaration, ({ path, headers }, { deps }) => {
  const webhook = authorize(deps, path.id, headers.authorization);
  const list: WebhookDeliveryList = { generated_at: deps.now().toISOString(), deliveries: listDeliveries(deps.db, webhook.id) };
  return new JsonReply(200, NO_STORE, list);
});

export const testWebhookOperation = defineOperation(testWebhookDeclaration, ({ path, headers }, { deps }) => {
  const webhook = authorize(deps, path.id, headers.authorization);
  if (webhook.status === 'disabled') throw apiError(409, 'conflict', `The webhook is disabled: ${webhook.disabled_reason} Create it again to resume.`);
  const delivery = queuePing(deps.db, webhook, `msg_ping_${randomBytes(9).toString('base64url')}`, deps.now().toISOString());
  return new JsonReply(202, NO_STORE, delivery);
});

/** The webhook whose secret the bearer is, compared in constant time; else 401, the same for an unknown id. */
function authorize(deps: AppDeps, id: string, authorization: string | undefined): Webhook {
  const found = getWebhook(deps.db, id);
  if (found && matchesDigest(readBearer(authorization) ?? '', digestSecret(found.secret))) return found.webhook;
  throw apiError(401, 'unauthorized', 'No webhook with that id and secret: send Authorization: Bearer <the secret answered when it was created>.', {
    headers: { 'www-authenticate': 'Bearer' },
  });
}

function admitCreation(deps: AppDeps, client: string, now: Date): void {
  const since = new Date(now.getTime() - 3_600_000).toISOString();
  if (countWebhooksCreatedSince(deps.db, client, since) < WEBHOOKS_PER_CLIENT_HOUR) return;
  throw apiError(429, 'rate_limited', `Over ${WEBHOOKS_PER_CLIENT_HOUR} webhooks created per hour from one client. Retry after the Retry-After seconds.`, {
    headers: { 'retry-after': '3600' },
  });
}

/**
 * A receiver URL the index may deliver to: public, by the SSRF guard on the addresses the app's resolver finds
 * (DNS_SERVERS, with a time limit; checked again at every delivery's connect), and https, or http only to a receiver
 * ALLOW_PRIVATE_TARGETS allows (a local one, in tests and fleets).
 */
async function toReceiverUrl(input: string, deps: AppDeps, client: string): Promise<string> {
  const allow = deps.config.allowPrivateTargets;
  const gate = appLookupGate(deps);
  // One lookup answers both questions: is the host public, and is an http receiver one the allow-list covers.
  let found: Promise<string[]> | undefined;
  const lookup = (host: string) => (found ??= gate.lookup(client, host));
  let url: URL;
  try {
    // A host that does not resolve within the limit is accepted, as a submission is: every delivery checks it again.
    url = await assertPublicUrl(input, { allow, lookup, onUnresolvable: 'accept' });
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    throw apiError(400, 'invalid_endpoint', `"url" ${error.message}: give a public https URL.`);
  }
  if (url.protocol === 'http:' && !(await isAllowedPrivate(url.hostname, allow, lookup))) {
    throw apiError(400, 'invalid_endpoint', '"url" must be https (http only for a receiver ALLOW_PRIVATE_TARGETS allows).');
  }
  return url.href;
}

async function isAllowedPrivate(hostname: string, allow: AllowList, lookup: (host: string) => Promise<string[]>): Promise<boolean> {
  const literal = toHostAddress(hostname);
  const addresses = literal !== undefined ? [literal] : await lookup(hostname);
  return addresses.length > 0 && addresses.every((address) => allow.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4'));
}
