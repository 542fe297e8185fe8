import {
  approvePurchaseDeclaration, createPurchaseDeclaration, declinePurchaseDeclaration, getCatalogDeclaration,
  getCatalogServiceDeclaration, getPurchaseDeclaration,
} from '../declarations/purchase.ts';
import { defineOperation, type OperationContext } from '../operation.ts';

/**
 * The purchase preview's operations: the catalog, purchases and their approval. Their handlers are loaded on the
 * first call rather than at start: they bring viem, whose memory the index's reads, which never use it, should not carry.
 */
const handlers = () => import('./handlers.ts');

export const getCatalogOperation = defineOperation(getCatalogDeclaration, async (_input, context: OperationContext) => (await handlers()).readCatalog(context));

export const getCatalogServiceOperation = defineOperation(getCatalogServiceDeclaration, async ({ path }, context) => (await handlers()).readCatalogService(path.id, context));

export const createPurchaseOperation = defineOperation(createPurchaseDeclaration, async ({ body }, context) => (await handlers()).createPurchase(body, context));

export const getPurchaseOperation = defineOperation(getPurchaseDeclaration, async ({ path }, context) => (await handlers()).readPurchase(path.id, context));

export const approvePurchaseOperation = defineOperation(approvePurchaseDeclaration, async ({ path, body }, context) => (await handlers()).approvePurchase(path.id, body, context));

export const declinePurchaseOperation = defineOperation(declinePurchaseDeclaration, async ({ path, headers }, context) =>
  (await handlers()).declinePurchase(path.id, headers['content-type']?.startsWith('application/x-www-form-urlencoded') ?? false, context));
