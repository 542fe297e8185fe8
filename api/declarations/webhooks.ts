import { z } from 'zod';
import { toChainName } from '../../domain/chains.ts';
import {
  CHANGE_TYPES, RAILS, Webhook, WebhookCreated, WebhookDelivery, WebhookDeliveryList,
} from '../../domain/schemas.ts';
import { declareOperation } from '../declaration.ts';
import { SUBMIT_LOOKUP_TIMEOUT_MS } from '../lookup-limits.ts';

/**
 * Webhooks (DESIGN.md "Changes, feeds, webhooks, badges"): anyone may subscribe a receiver to the change log; the
 * secret answered once is both what signs each delivery and the bearer for the subscription's own routes. Sending
 * is the delivery worker's (webhooks/), which the server runs beside it.
 */

/** Subscriptions one client may create per hour. */
export const WEBHOOKS_PER_CLIENT_HOUR = 10;
const MAX_SERVICES = 100;
const MAX_URL_LENGTH = 2048;

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

export const createWebhookDeclaration = declareOperation({
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
});

export const getWebhookDeclaration = declareOperation({
  id: 'getWebhook',
  method: 'GET',
  path: '/api/v1/webhooks/{id}',
  group: 'index',
  summary: 'A webhook\'s filters and standing (active, or disabled with the reason). Needs Authorization: Bearer <secret>.',
  input: { path: idPath, headers: bearer },
  output: Webhook,
  errors: { '401': UNAUTHORIZED },
  examples: () => [{ path: { id: '{id}' }, headers: { Authorization: 'Bearer whsec_…' } }],
});

export const deleteWebhookDeclaration = declareOperation({
  id: 'deleteWebhook',
  method: 'DELETE',
  path: '/api/v1/webhooks/{id}',
  group: 'index',
  summary: 'Deletes a webhook with its queue and log. Needs Authorization: Bearer <secret>.',
  input: { path: idPath, headers: bearer },
  output: z.object({ ok: z.literal(true), id: z.string() }).meta({ id: 'WebhookDeleted' }),
  errors: { '401': UNAUTHORIZED },
  examples: () => [{ path: { id: '{id}' }, headers: { Authorization: 'Bearer whsec_…' } }],
});

export const listWebhookDeliveriesDeclaration = declareOperation({
  id: 'listWebhookDeliveries',
  method: 'GET',
  path: '/api/v1/webhooks/{id}/deliveries',
  group: 'index',
  summary: 'A webhook\'s last 100 deliveries, newest first: when, which change, status, attempts, next attempt. Needs Authorization: Bearer <secret>.',
  input: { path: idPath, headers: bearer },
  output: WebhookDeliveryList,
  errors: { '401': UNAUTHORIZED },
  examples: () => [{ path: { id: '{id}' }, headers: { Authorization: 'Bearer whsec_…' } }],
});

export const testWebhookDeclaration = declareOperation({
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
});
