import type { OperationDeclaration } from '../declaration.ts';
import { DECLARATIONS } from '../declarations/index.ts';
import type { Operation } from '../operation.ts';
import {
  approvePurchaseOperation, createPurchaseOperation, declinePurchaseOperation, getCatalogOperation, getCatalogServiceOperation,
  getPurchaseOperation,
} from '../purchase/operations.ts';
import {
  batchServicesByQueryOperation, batchServicesOperation, getServiceOperation, getStatsOperation, listServicesOperation,
} from './services.ts';
import { getEndpointOperation, listEndpointsOperation } from './endpoints.ts';
import { getStatusOperation } from './status.ts';
import { listX402ResourcesOperation, searchX402ResourcesOperation } from './x402-discovery.ts';
import { listChangesOperation, listServiceChangesOperation } from './changes.ts';
import {
  createWebhookOperation, deleteWebhookOperation, getWebhookOperation, listWebhookDeliveriesOperation, testWebhookOperation,
} from './webhooks.ts';
import { createClaimOperation, verifyClaimOperation } from './claims.ts';
import { delistServiceOperation, editServiceOperation, recheckServiceOperation, relistServiceOperation } from './owners.ts';
import { getSubmissionOperation, submitServiceOperation } from './submissions.ts';
import { checkEndpointOperation } from './check.ts';
import { listFacilitatorsOperation } from './facilitators.ts';
import { DEMO_OPERATIONS } from './demo.ts';

/** The operation of every declaration: a handler attached to each (`defineOperation`), in any order. */
const HANDLED: readonly Operation[] = [
  listServicesOperation, getServiceOperation, batchServicesOperation, batchServicesByQueryOperation, listEndpointsOperation,
  getEndpointOperation, listX402ResourcesOperation, searchX402ResourcesOperation, getStatsOperation, getStatusOperation,
  listChangesOperation, listServiceChangesOperation, submitServiceOperation, getSubmissionOperation, checkEndpointOperation,
  listFacilitatorsOperation, createWebhookOperation, getWebhookOperation, listWebhookDeliveriesOperation,
  testWebhookOperation, deleteWebhookOperation, createClaimOperation, verifyClaimOperation, editServiceOperation,
  delistServiceOperation, relistServiceOperation, recheckServiceOperation, getCatalogOperation, getCatalogServiceOperation,
  createPurchaseOperation, getPurchaseOperation, approvePurchaseOperation, declinePurchaseOperation,
];

/**
 * Every public operation of the API, in the order its declarations list them (api/declarations/index.ts), then the
 * demo services: REST routes, `/openapi.json` and the MCP tools are all made from this list. A declaration without
 * a handler, or a handler of no listed declaration, stops the API at load rather than missing a route.
 */
export const OPERATIONS: readonly Operation[] = [...toDeclaredOrder(DECLARATIONS, HANDLED), ...DEMO_OPERATIONS];

function toDeclaredOrder(declarations: readonly OperationDeclaration[], handled: readonly Operation[]): Operation[] {
  const byId = new Map(handled.map((operation) => [operation.id, operation]));
  if (byId.size !== declarations.length) throw new Error(`${byId.size} handled operations for ${declarations.length} declarations`);
  return declarations.map((declaration) => {
    const operation = byId.get(declaration.id);
    if (!operation) throw new Error(`the operation "${declaration.id}" is declared but has no handler (api/operations/)`);
    return operation;
  });
}
