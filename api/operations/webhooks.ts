import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { assertPublicUrl, TargetError, toHostAddress, type AllowList } from '../../net/guard.ts';
import {
  countWebhooksCreatedSince, createWebhook, deleteWebhook, getWebhook, listDeliveries, queuePing,
} from '../../data/webhooks.ts';
import { toChainName } from '../../domain/chains.ts';
import {
  CHANGE_TYPES, RAILS, Webhook, WebhookCreated, WebhookDelivery, WebhookDeliveryList,
} from '../../domain/schemas.ts';
import type { AppDeps } from '../app.ts';
import { digestSecret, matchesDigest, readBearer } from '../bearer.ts';
import { apiError } from '../errors.ts';
import { JsonReply } from '../http.ts';
import { appLookupGate, SUBMIT_LOOKUP_TIMEOUT_MS } from '../lookup-gate.ts';
import { defineOperation } from '../operation.ts';

/**
 * Webhooks (DESIGN.md "Changes, feeds, webhooks, badges"): anyone may subscribe a receiver to the change log; the
 * secret answered once is both what signs each delivery and the bearer for the subscription's own routes. Sending
 * is the delivery worker's (webhooks/), which the server runs beside it.
 */

/** Subscriptions one client may create per hour. */
export const WEBHOOKS_PER_CLIENT_HOUR = 10;
const MAX_SERVICES = 100;
const MAX_URL_LENGTH = 2048;
const NO_STORE = { 'cache-control': 'no-store' };

const URL_REQUIRED = 'is required: the https URL that receives deliveries';
const lowerText = (what: string) => z.string({ error: `must be ${what}` }).trim().toLowerCase().min(1, { error: `must be ${what}` });

const WebhookRequest = z
  .object({
    url: z.string({ error: URL_REQUIRED }).trim().min(1, { error: URL_REQUIRED })
      .max(MAX_URL_LENGTH, { error: `is over ${MAX_URL_LENGTH} characters` })
      .meta({ description: 'Required: the https URL that receives deliveries (http only for a receiver ALLOW_PRIVATE_TARGETS allows).', format: 'uri' }),
    types: z.array(z.enum(CHANGE_TYPES), { error: `must be an array of ${CHANGE_TYPES.join(', ')}` }).optional()
      .meta({ description: 'Only these change types; none: every type.' }),
    services: z.array(lowerText('a service id'), { error: `must be an array of at most ${MAX_SERVICES} service ids` })
      .max(MAX_SERVICES, { error: `must be an array of at most ${MAX_SERVICES} service ids` }).optional()
      .meta({ description: 'Only changes of these service ids; none: every service.' }),
    rail: z.enum(RAILS, { error: `must be one of ${RAILS.join(', ')}` }).optional()
      .meta({ description: 'Only changes of services on this rail.' }),
    chain: lowerText('a chain name or CAIP-2 id').transform((chain) => toChainName(chain).toLowerCase()).optional()
      .meta({ description: 'Only changes of services on this chain (base or eip155:8453).' }),
    asset: lowerText('an asset symbol').optional().meta({ description: 'Only changes of services paid in this asset (USDC).' }),
  })
  .meta({ id: 'WebhookRequest' });

const idPath = z.object({ id: z.string().meta({ description: 'The webhook id answered at creation.' }) });
const bearer = z.object({
  authorization: z.string().optional().meta({ description: 'Bearer <the secret answered at creation>.' }),
});
const UNAUTHORIZED = '401 unauthorized: no webhook with that id and secret.';

export const createWebhookOperation = defineOperation({
  id: 'createWebhook',
  method: 'POST',
  path: '/api/v1/webhooks',
  status: 201,
  group: 'index',
  summary: `Subscribe a receiver to changes (all, or some types, services, rail, chain, asset). Deliveries follow Standard Webhooks, body {type, timestamp, data: <change>}, retried for up to 72 hours. The secret (whsec_…) is answered only here. ${WEBHOOKS_PER_CLIENT_HOUR} per client an hour.`,
  input: { body: WebhookRequest },
  fieldErrors: { url: 'invalid_endpoint' },
  output: WebhookCreated,
  errors: { '400': `invalid_json (a field, named in the message) or invalid_endpoint (url not https, or its host private or resolving to a private address). A host that does not resolve within ${SUBMIT_LOOKUP_TIMEOUT_MS / 1000} s is accepted, as a submission is; every delivery checks its addresses again.`, '429': 'rate_limited: over the subscriptions a client may create an hour.' },
  examples: () => [{ body: { url: 'https://hooks.example.com/psi', types: ['went_live', 'went_dark', 'price_changed'], rail: 'x402' } }],
  handle: async ({ body }, context) => {
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
  },
});

export const getWebhookOperation = defineOperation({
  id: 'getWebhook',
  method: 'GET',
  path: '/api/v1/webhooks/{id}',
  group: 'index',
  summary: 'A webhook\'s filters and standing (active, or disabled with the reason). Needs Authorization: Bearer <secret>.',
  input: { path: idPath, headers: bearer },
  output: Webhook,
  errors: { '401': UNAUTHORIZED },
  examples: () => [{ path: { id: '{id}' }, headers: { Authorization: 'Bearer whsec_…' } }],
  handle: ({ path, headers }, { deps }) => new JsonReply(200, NO_STORE, authorize(deps, path.id, headers.authorization)),
});

export const deleteWebhookOperation = defineOperation({
  id: 'deleteWebhook',
  method: 'DELETE',
  path: '/api/v1/webhooks/{id}',
  group: 'index',
  summary: 'Deletes a webhook with its queue and log. Needs Authorization: Bearer <secret>.',
  input: { path: idPath, headers: bearer },
  output: z.object({ ok: z.literal(true), id: z.string() }).meta({ id: 'WebhookDeleted' }),
  errors: { '401': UNAUTHORIZED },
  examples: () => [{ path: { id: '{id}' }, headers: { Authorization: 'Bearer whsec_…' } }],
  handle: ({ path, headers }, { deps }) => {
    const webhook = authorize(deps, path.id, headers.authorization);
    deleteWebhook(deps.db, webhook.id);
    return new JsonReply(200, NO_STORE, { ok: true, id: webhook.id });
  },
});

export const listWebhookDeliveriesOperation = defineOperation({
  id: 'listWebhookDeliveries',
  method: 'GET',
  path: '/api/v1/webhooks/{id}/deliveries',
  group: 'index',
  summary: 'A webhook\'s last 100 deliveries, newest first: when, which change, status, attempts, next attempt. Needs Authorization: Bearer <secret>.',
  input: { path: idPath, headers: bearer },
  output: WebhookDeliveryList,
  errors: { '401': UNAUTHORIZED },
  examples: () => [{ path: { id: '{id}' }, headers: { Authorization: 'Bearer whsec_…' } }],
  handle: ({ path, headers }, { deps }) => {
    const webhook = authorize(deps, path.id, headers.authorization);
    const list: WebhookDeliveryList = { generated_at: deps.now().toISOString(), deliveries: listDeliveries(deps.db, webhook.id) };
    return new JsonReply(200, NO_STORE, list);
  },
});

export const testWebhookOperation = defineOperation({
  id: 'testWebhook',
  method: 'POST',
  path: '/api/v1/webhooks/{id}/test',
  status: 202,
  group: 'index',
  summary: 'Queues a ping ({type: "ping", data: {webhook_id}}) to the receiver, sent within seconds; follow it in the deliveries. Needs Authorization: Bearer <secret>.',
  input: { path: idPath, headers: bearer },
  output: WebhookDelivery,
  errors: { '401': UNAUTHORIZED, '409': 'conflict: the webhook is disabled (the message says why); create it again.' },
  examples: () => [{ path: { id: '{id}' }, headers: { Authorization: 'Bearer whsec_…' } }],
  handle: ({ path, headers }, { deps }) => {
    const webhook = authorize(deps, path.id, headers.authorization);
    if (webhook.status === 'disabled') throw apiError(409, 'conflict', `The webhook is disabled: ${webhook.disabled_reason} Create it again to resume.`);
    const delivery = queuePing(deps.db, webhook, `msg_ping_${randomBytes(9).toString('base64url')}`, deps.now().toISOString());
    return new JsonReply(202, NO_STORE, delivery);
  },
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
