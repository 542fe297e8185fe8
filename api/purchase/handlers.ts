/**
 * The purchase preview's handlers, loaded by api/purchase/routes.ts on the first purchase request: they need viem
 * (addresses and signatures), which the index's own routes never do.
 */
import { beginSettlement, finishPurchase, getPurchase, insertPurchase, recordDecline, type SettlementRefusal } from '../../data/purchases.ts';
import type { AppDeps } from '../app.ts';
import type { OperationContext } from '../operation.ts';
import { apiError } from '../errors.ts';
import { JsonReply } from '../http.ts';
import type { DemoService } from '../demo/service.ts';
import { toQueryString } from '../demo/query.ts';
import { findDemoService } from '../demo/registry.ts';
import { toPaymentRequirements } from '../demo/terms.ts';
import { readDemoParams } from '../operations/demo.ts';
import { assertApproval } from './approval.ts';
import { toCatalogService, toPurchaseCatalog } from './catalog.ts';
import { payThroughService } from './pay.ts';
import type { ApprovalRequest, CatalogService, Purchase, PurchaseCatalog, PurchaseRequest } from './schemas.ts';
import { toPurchaseView } from './view.ts';

/** GET /api/v1/purchase: the catalog document. */
export function readCatalog({ deps, origin }: OperationContext): PurchaseCatalog {
  return toPurchaseCatalog(deps.config, toStagingUrl(deps.config, origin), deps.now());
}

/** GET /api/v1/purchase/services/{id}: one catalog entry. */
export function readCatalogService(id: string, { deps, origin }: OperationContext): CatalogService {
  return toCatalogService(assertDemoService(id), deps.config, toStagingUrl(deps.config, origin));
}

/** POST /api/v1/purchases (the agent): validates like the service itself, then records a purchase awaiting the owner. */
export function createPurchase(request: PurchaseRequest, { deps, origin }: OperationContext): Purchase {
  const { db, config, now } = deps;
  const service = assertDemoService(request.service_id);
  const params = readDemoParams(service, request.params ?? {});
  const requirements = toPaymentRequirements(service, config);
  const stagingUrl = toStagingUrl(config, origin);
  const purchase = insertPurchase(
    db,
    {
      service_id: service.id,
      params,
      resource_url: `${stagingUrl}${service.path}?${toQueryString(service.query, params)}`,
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
export function readPurchase(id: string, { deps, origin }: OperationContext): JsonReply {
  const purchase = getPurchase(deps.db, id, deps.now());
  if (!purchase) throw notFound();
  return new JsonReply(200, { 'cache-control': 'no-store' }, toPurchaseView(purchase, toStagingUrl(deps.config, origin)));
}

/**
 * POST /api/v1/purchases/{id}/approval (the owner's page): checks the signed authorization, then pays the
 * service through x402 and records the outcome. Answers the purchase, completed or failed with the reason.
 */
export async function approvePurchase(id: string, approval: ApprovalRequest, { deps, origin, app }: OperationContext): Promise<Purchase> {
  const { db, config, now } = deps;
  const purchase = getPurchase(db, id, now());
  if (!purchase) throw notFound();
  if (purchase.status !== 'awaiting_approval') throw refusal(purchase.status === 'expired' ? 'expired' : 'already_approved');
  const payload = await assertApproval(purchase, approval, now());
  const begun = beginSettlement(db, id, { payer: approval.authorization.from, nonce: approval.authorization.nonce }, now());
  if (!begun.ok) throw refusal(begun.refusal);
  if (!app) throw new Error('the approval needs the app to call the demo service in process');
  const outcome = await payThroughService(app, begun.purchase, payload);
  const finished = finishPurchase(db, id, outcome, now());
  if (!finished) throw new Error(`purchase ${id} left settling while it was being paid`);
  return toPurchaseView(finished, toStagingUrl(config, origin));
}

/**
 * POST /api/v1/purchases/{id}/decline (the owner's page): the owner says no; the agent following the purchase reads
 * `failed` with the reason. Only a purchase still awaiting approval can be declined. The page's form, sent without
 * JavaScript, is answered 303 back to the page, which shows the outcome.
 */
export function declinePurchase(id: string, fromForm: boolean, { deps, origin }: OperationContext): JsonReply {
  const { db, config, now } = deps;
  const declined = recordDecline(db, id, now());
  const purchase = declined ?? getPurchase(db, id, now());
  if (!purchase) throw notFound();
  const view = toPurchaseView(purchase, toStagingUrl(config, origin));
  if (fromForm) return new JsonReply(303, { 'cache-control': 'no-store', location: `/purchase/${encodeURIComponent(id)}` }, view);
  if (!declined) throw apiError(409, 'conflict', `This purchase is ${purchase.status.replace('_', ' ')}: only one awaiting approval can be declined.`);
  return new JsonReply(200, { 'cache-control': 'no-store' }, view);
}

function assertDemoService(id: string): DemoService {
  const service = findDemoService(id);
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

/** The origin the purchase preview is served on: STAGING_URL, or the origin the request came to. */
function toStagingUrl(config: AppDeps['config'], origin: string): string {
  return (config.stagingUrl ?? origin).replace(/\/+$/, '');
}
