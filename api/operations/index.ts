import type { Operation } from '../operation.ts';
import {
  approvePurchaseOperation, createPurchaseOperation, getCatalogOperation, getCatalogServiceOperation, getPurchaseOperation,
} from '../purchase/operations.ts';
import {
  batchServicesByQueryOperation, batchServicesOperation, getServiceOperation, getStatsOperation, listServicesOperation,
} from './services.ts';
import { getStatusOperation } from './status.ts';
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
  ...DEMO_OPERATIONS,
];
