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

/**
 * Every public operation of the API, in the order the documentation lists them: REST routes, `/openapi.json`,
 * `/docs` and the MCP tools are all made from this list.
 */
export const OPERATIONS: readonly Operation[] = [
  listServicesOperation,
  getServiceOperation,
  batchServicesOperation,
  batchServicesByQueryOperation,
  listEndpointsOperation,
  getEndpointOperation,
  listX402ResourcesOperation,
  searchX402ResourcesOperation,
  getStatsOperation,
  getStatusOperation,
  listChangesOperation,
  listServiceChangesOperation,
  submitServiceOperation,
  getSubmissionOperation,
  checkEndpointOperation,
  listFacilitatorsOperation,
  createWebhookOperation,
  getWebhookOperation,
  listWebhookDeliveriesOperation,
  testWebhookOperation,
  deleteWebhookOperation,
  createClaimOperation,
  verifyClaimOperation,
  editServiceOperation,
  delistServiceOperation,
  relistServiceOperation,
  recheckServiceOperation,
  getCatalogOperation,
  getCatalogServiceOperation,
  createPurchaseOperation,
  getPurchaseOperation,
  approvePurchaseOperation,
  declinePurchaseOperation,
  ...DEMO_OPERATIONS,
];
