import { z } from 'zod';
import { declareOperation } from '../declaration.ts';
import { ApprovalRequest, CatalogService, Purchase, PurchaseCatalog, PurchaseRequest } from '../purchase/schemas.ts';

/** The purchase preview's operations: the catalog, purchases and their approval (testnet). */

const purchasePath = z.object({ id: z.string().meta({ description: 'Purchase id from the create response.' }) });

export const getCatalogDeclaration = declareOperation({
  id: 'getPurchaseCatalog',
  method: 'GET',
  path: '/api/v1/purchase',
  group: 'purchase',
  summary: 'The testnet purchase-preview catalog: supported payment terms and every demo service with its parameters and price.',
  input: {},
  output: PurchaseCatalog,
  errors: {},
  tool: { name: 'list_demo_services', title: 'List the demo services an agent may buy (testnet)', readOnly: true },
  examples: () => [{}],
});

export const getCatalogServiceDeclaration = declareOperation({
  id: 'getPurchaseCatalogService',
  method: 'GET',
  path: '/api/v1/purchase/services/{id}',
  group: 'purchase',
  summary: 'One demo service of the catalog, e.g. index-demo-market-data.',
  input: { path: z.object({ id: z.string().meta({ description: 'Demo service id, e.g. index-demo-web-search.' }) }) },
  output: CatalogService,
  errors: { '404': 'not_found: no such demo service.' },
  examples: () => [{ path: { id: 'index-demo-market-data' } }],
});

export const createPurchaseDeclaration = declareOperation({
  id: 'createPurchase',
  method: 'POST',
  path: '/api/v1/purchases',
  group: 'purchase',
  summary: 'Ask for a purchase; answers its id, status, amount, pay_to and the approval URL to give the owner, who approves it within 300 s.',
  input: { body: PurchaseRequest },
  fieldErrors: { service_id: 'missing_query' },
  output: Purchase,
  errors: {
    '400': 'missing_query (a parameter missing, unknown or outside its enum, named) or invalid_json.',
    '404': 'not_found: unknown service_id.',
    '413': 'invalid_json: body over 64 KiB.',
  },
  tool: { name: 'create_purchase', title: 'Ask the owner to approve a testnet purchase', readOnly: false },
  examples: () => [{ body: { service_id: 'index-demo-market-data', params: { asset: 'ETH' } } }],
});

export const getPurchaseDeclaration = declareOperation({
  id: 'getPurchase',
  method: 'GET',
  path: '/api/v1/purchases/{id}',
  group: 'purchase',
  summary: "A purchase's status and, once paid, the transaction and the service's answer. Never a signature.",
  input: { path: purchasePath },
  output: Purchase,
  errors: { '404': 'not_found: no such purchase.' },
  tool: { name: 'get_purchase', title: 'Follow a purchase', readOnly: true },
  examples: () => [{ path: { id: '{id}' } }],
});

export const approvePurchaseDeclaration = declareOperation({
  id: 'approvePurchase',
  method: 'POST',
  path: '/api/v1/purchases/{id}/approval',
  group: 'purchase',
  summary: "The owner's approval page posts the signed EIP-3009 authorization; the server checks it and settles.",
  input: { path: purchasePath, body: ApprovalRequest },
  output: Purchase,
  errors: {
    '400': 'invalid_json: the authorization is refused; the message says why.',
    '404': 'not_found: no such purchase.',
    '409': 'invalid_json: already approved, or expired.',
    '413': 'invalid_json: body over 64 KiB.',
  },
  examples: () => [{
    path: { id: '{id}' },
    body: { authorization: { from: '0x…', to: '0x…', value: '…', validAfter: '…', validBefore: '…', nonce: '0x…' }, signature: '0x…' },
  }],
});

export const declinePurchaseDeclaration = declareOperation({
  id: 'declinePurchase',
  method: 'POST',
  path: '/api/v1/purchases/{id}/decline',
  group: 'purchase',
  summary: "The owner's approval page declines a purchase awaiting approval: it fails, and the agent following it reads why.",
  input: {
    path: purchasePath,
    headers: z.object({
      'content-type': z.string().optional()
        .meta({ description: 'A form post (application/x-www-form-urlencoded: the approval page without JavaScript) is answered 303 to that page.' }),
    }),
  },
  output: Purchase,
  errors: {
    '404': 'not_found: no such purchase.',
    '409': 'conflict: no longer awaiting approval (approved, paid, declined or expired).',
  },
  examples: () => [{ path: { id: '{id}' } }],
});
