import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { DEMO_SERVICES } from '../demo/registry.ts';
import { ApprovalRequest, CatalogService, PaymentRequired, Purchase, PurchaseCatalog, PurchaseRequest } from './schemas.ts';

/** The helpers api/openapi.ts builds every operation with, handed in so the purchase operations look the same. */
export interface OperationHelpers {
  responses: (ok: z.ZodType, okDescription: string, errors: Record<string, string>) => ZodOpenApiResponsesObject;
  json: (schema: z.ZodType, description: string) => { description: string; content: Record<string, { schema: z.ZodType }> };
  idParam: (description: string) => { path: z.ZodObject };
}

/**
 * The purchase preview's operations for `/openapi.json`: the catalog, purchases, approval, and each demo service.
 * @example const operations = { ...indexOperations, ...purchaseOperations({ responses, json, idParam }) };
 */
export function purchaseOperations({ responses, json, idParam }: OperationHelpers): Record<string, Record<string, ZodOpenApiOperationObject>> {
  const purchaseId = idParam('Purchase id from the create response.');
  return {
    '/api/v1/purchase': {
      get: {
        operationId: 'getPurchaseCatalog',
        summary: 'The testnet purchase-preview catalog: terms, wallet support and every demo service.',
        responses: responses(PurchaseCatalog, 'The catalog document.', {}),
      },
    },
    '/api/v1/purchase/services/{id}': {
      get: {
        operationId: 'getPurchaseCatalogService',
        summary: 'One demo service of the catalog.',
        requestParams: idParam('Demo service id, e.g. index-demo-web-search.'),
        responses: responses(CatalogService, 'The catalog entry.', { '404': 'not_found: no such demo service.' }),
      },
    },
    '/api/v1/purchases': {
      post: {
        operationId: 'createPurchase',
        summary: 'The agent asks for a purchase; it awaits the owner, who approves at approve_url (300 s).',
        requestBody: { required: true, content: { 'application/json': { schema: PurchaseRequest } } },
        responses: responses(Purchase, 'The purchase, awaiting approval.', {
          '400': 'missing_query (a parameter missing, unknown or outside its enum, named) or invalid_json.',
          '404': 'not_found: unknown service_id.',
        }),
      },
    },
    '/api/v1/purchases/{id}': {
      get: {
        operationId: 'getPurchase',
        summary: "A purchase's status; once completed, the transaction and the service's answer. Never a signature.",
        requestParams: purchaseId,
        responses: responses(Purchase, 'The purchase.', { '404': 'not_found: no such purchase.' }),
      },
    },
    '/api/v1/purchases/{id}/approval': {
      post: {
        operationId: 'approvePurchase',
        summary: "The owner's approval page posts the signed EIP-3009 authorization; the server checks it and settles.",
        requestParams: purchaseId,
        requestBody: { required: true, content: { 'application/json': { schema: ApprovalRequest } } },
        responses: responses(Purchase, 'The purchase, completed or failed with the reason.', {
          '400': 'invalid_json: the authorization is refused; the message says why.',
          '404': 'not_found: no such purchase.',
          '409': 'invalid_json: already approved, or expired.',
        }),
      },
    },
    ...Object.fromEntries(DEMO_SERVICES.map((service) => [service.path, { get: toDemoOperation(service, { responses, json }) }])),
  };
}

function toDemoOperation(service: (typeof DEMO_SERVICES)[number], { responses, json }: Pick<OperationHelpers, 'responses' | 'json'>): ZodOpenApiOperationObject {
  const query = z.object(
    Object.fromEntries(Object.entries(service.params).map(([name, spec]) => {
      const schema = z.enum(spec.enum.map(String) as [string, ...string[]]).meta({ description: spec.description });
      return [name, spec.required ? schema : schema.optional()];
    })),
  );
  const answer = z.record(z.string(), z.unknown()).meta({ description: Object.entries(service.returns).map(([k, v]) => `${k}: ${v}`).join('; ') });
  return {
    operationId: service.id.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
    summary: `${service.description} x402 v2, ${service.price} USDC on Base Sepolia.`,
    requestParams: { query, header: z.object({ 'PAYMENT-SIGNATURE': z.string().optional().meta({ description: 'base64 x402 v2 payment payload.' }) }) },
    responses: {
      ...responses(answer, 'Paid: the answer; PAYMENT-RESPONSE carries the settlement.', {
        '400': 'missing_query: a parameter missing, unknown or outside its enum, named; checked before any challenge.',
      }),
      '402': json(PaymentRequired, 'Unpaid, or the payment was refused: the challenge (also in PAYMENT-REQUIRED) with the reason in error.'),
    },
  };
}
