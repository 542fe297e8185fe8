import type { OperationDeclaration } from '../declaration.ts';
import { checkEndpointDeclaration } from './check.ts';
import { listChangesDeclaration, listServiceChangesDeclaration } from './changes.ts';
import { createClaimDeclaration, verifyClaimDeclaration } from './claims.ts';
import { getEndpointDeclaration, listEndpointsDeclaration } from './endpoints.ts';
import { listFacilitatorsDeclaration } from './facilitators.ts';
import {
  delistServiceDeclaration, editServiceDeclaration, recheckServiceDeclaration, relistServiceDeclaration,
} from './owners.ts';
import {
  approvePurchaseDeclaration, createPurchaseDeclaration, declinePurchaseDeclaration, getCatalogDeclaration,
  getCatalogServiceDeclaration, getPurchaseDeclaration,
} from './purchase.ts';
import {
  batchServicesByQueryDeclaration, batchServicesDeclaration, getServiceDeclaration, getStatsDeclaration, listServicesDeclaration,
} from './services.ts';
import { getStatusDeclaration } from './status.ts';
import { getSubmissionDeclaration, submitServiceDeclaration } from './submissions.ts';
import {
  createWebhookDeclaration, deleteWebhookDeclaration, getWebhookDeclaration, listWebhookDeliveriesDeclaration,
  testWebhookDeclaration,
} from './webhooks.ts';
import { listX402ResourcesDeclaration, searchX402ResourcesDeclaration } from './x402-discovery.ts';

/**
 * Every public operation's declaration but the demo services' (made from the demo registry, api/operations/demo.ts),
 * in the order the documentation lists them. `/docs` and `llms.txt` read this list; the API attaches a handler to
 * each (api/operations/index.ts) and makes its routes, `/openapi.json` and MCP tools from the result.
 */
export const DECLARATIONS: readonly OperationDeclaration[] = [
  listServicesDeclaration,
  getServiceDeclaration,
  batchServicesDeclaration,
  batchServicesByQueryDeclaration,
  listEndpointsDeclaration,
  getEndpointDeclaration,
  listX402ResourcesDeclaration,
  searchX402ResourcesDeclaration,
  getStatsDeclaration,
  getStatusDeclaration,
  listChangesDeclaration,
  listServiceChangesDeclaration,
  submitServiceDeclaration,
  getSubmissionDeclaration,
  checkEndpointDeclaration,
  listFacilitatorsDeclaration,
  createWebhookDeclaration,
  getWebhookDeclaration,
  listWebhookDeliveriesDeclaration,
  testWebhookDeclaration,
  deleteWebhookDeclaration,
  createClaimDeclaration,
  verifyClaimDeclaration,
  editServiceDeclaration,
  delistServiceDeclaration,
  relistServiceDeclaration,
  recheckServiceDeclaration,
  getCatalogDeclaration,
  getCatalogServiceDeclaration,
  createPurchaseDeclaration,
  getPurchaseDeclaration,
  approvePurchaseDeclaration,
  declinePurchaseDeclaration,
];
