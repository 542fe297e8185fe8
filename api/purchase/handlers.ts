/**
 * The purchase preview's handlers, loaded by api/purchase/routes.ts on the first purchase request: they need viem
 * (addresses and signatures), which the index's own routes never do.
 */
import { getRouterParam, type H3Event } from 'h3';
import { beginSettlement, finishPurchase, getPurchase, insertPurchase, type SettlementRefusal } from '../../data/purchases.ts';
import type { AppDeps } from '../app.ts';
import { readJsonObject } from '../body.ts';
import { apiError } from '../errors.ts';
import { JsonReply } from '../http.ts';
import type { DemoService } from '../demo/define.ts';
import { readDemoParams, toQueryString } from '../demo/params.ts';
import { findDemoService } from '../demo/registry.ts';
import { toPaymentRequirements } from '../demo/terms.ts';
import { assertApproval } from './approval.ts';
import { toCatalogService, toPurchaseCatalog } from './catalog.ts';
import { payThroughService } from './pay.ts';
import { ApprovalRequest, type CatalogService, type Purchase, type PurchaseCatalog } from './schemas.ts';
import { toPurchaseView } from './view.ts';

/** GET /api/v1/purchase: the catalog document. */
export function catalogRoute({ config, now }: AppDeps, event: H3Event): PurchaseCatalog {
  return toPurchaseCatalog(config, toStagingUrl(config, event), now());
}

/** GET /api/v1/purchase/services/{id}: one catalog entry. */
export function catalogServiceRoute({ config }: AppDeps, event: H3Event): CatalogService {
  return toCatalogService(assertDemoService(getRouterParam(event, 'id', { decode: true })), config, toStagingUrl(config, event));
}

/** POST /api/v1/purchases (the agent): validates like the service itself, then records a purchase awaiting the owner. */
export async function createPurchaseRoute({ db, config, now }: AppDeps, event: H3Event): Promise<Purchase> {
  const body = await readJsonObject(event);
  if (typeof body.service_id !== 'string' || body.service_id.trim() === '') {
    throw apiError(400, 'missing_query', 'Missing "service_id": one of the service ids at /api/v1/purchase.');
  }
  const service = assertDemoService(body.service_id.trim());
  const given = body.params ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw apiError(400, 'invalid_json', '"params" must be a JSON object of the service\'s parameters.');
  }
  const params = readDemoParams(service, given as Record<string, unknown>);
  const requirements = toPaymentRequirements(service, config);
  const stagingUrl = toStagingUrl(config, event);
  const purchase = insertPurchase(
    db,
    {
      service_id: service.id,
      params,
      resource_url: `${stagingUrl}${service.path}?${toQueryString(service, params)}`,
      amount_atomic: requirements.amount,
      pay_to: requirements.payTo,
      network: requirements.network,
      asset: requirements.asset,
    },
    now(),
  );
  return toPurchaseView(purchase, stagingUrl);
}

/** GET /api/v1/purchases/{id}: status, and once completed the transaction and the service's answer. Never cached. */
export function getPurchaseRoute({ db, config, now }: AppDeps, event: H3Event): JsonReply {
  const purchase = getPurchase(db, getRouterParam(event, 'id', { decode: true }) ?? '', now());
  if (!purchase) throw notFound();
  return new JsonReply(200, { 'cache-control': 'no-store' }, toPurchaseView(purchase, toStagingUrl(config, event)));
}

/**
 * POST /api/v1/purchases/{id}/approval (the owner's page): checks the signed authorization, then pays the
 * service through x402 and records the outcome. Answers the purchase, completed or failed with the reason.
 */
export async function approvePurchaseRoute({ db, config, now }: AppDeps, event: H3Event): Promise<Purchase> {
  const id = getRouterParam(event, 'id', { decode: true }) ?? '';
  const parsed = ApprovalRequest.safeParse(await readJsonObject(event));
  if (!parsed.success) {
    throw apiError(400, 'invalid_json', 'The approval must be {"authorization": {from, to, value, validAfter, validBefore, nonce}, "signature": "0x…"}.');
  }
  const purchase = getPurchase(db, id, now());
  if (!purchase) throw notFound();
  if (purchase.status !== 'awaiting_approval') throw refusal(purchase.status === 'expired' ? 'expired' : 'already_approved');
  const payload = await assertApproval(purchase, parsed.data, now());
  const begun = beginSettlement(db, id, { payer: parsed.data.authorization.from, nonce: parsed.data.authorization.nonce }, now());
  if (!begun.ok) throw refusal(begun.refusal);
  if (!event.app) throw new Error('the approval needs the app to call the demo service in process');
  const outcome = await payThroughService(event.app, begun.purchase, payload);
  const finished = finishPurchase(db, id, outcome, now());
  if (!finished) throw new Error(`purchase ${id} left settling while it was being paid`);
  return toPurchaseView(finished, toStagingUrl(config, event));
}

function assertDemoService(id: string | undefined): DemoService {
  const service = id ? findDemoService(id) : undefined;
  if (!service) throw apiError(404, 'not_found', `No demo service "${(id ?? '').slice(0, 100)}". The catalog at /api/v1/purchase lists them.`);
  return service;
}

function notFound() {
  return apiError(404, 'not_found', 'No purchase with that id. An agent creates one with POST /api/v1/purchases.');
}

function refusal(why: SettlementRefusal) {
  const messages: Record<SettlementRefusal, [number, string]> = {
    not_found: [404, 'No purchase with that id.'],
    expired: [409, 'This purchase expired before it was approved. Ask the agent for a new purchase.'],
    already_approved: [409, 'This purchase was already approved; it cannot be paid twice.'],
    nonce_used: [400, "This authorization's nonce was already used. Sign again: the page makes a fresh nonce."],
  };
  const [status, message] = messages[why];
  return apiError(status, why === 'not_found' ? 'not_found' : 'invalid_json', message);
}

/** The origin the purchase preview is served on: STAGING_URL, or this server's own origin. */
function toStagingUrl(config: AppDeps['config'], event: H3Event): string {
  return (config.stagingUrl ?? event.url.origin).replace(/\/+$/, '');
}
