import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { DEMO_SERVICES } from '../demo/registry.ts';
import { PaymentRequired } from './schemas.ts';

/** The helpers api/openapi.ts builds every operation with, handed in so the demo services look the same. */
export interface OperationHelpers {
  responses: (ok: z.ZodType, okDescription: string, errors: Record<string, string>) => ZodOpenApiResponsesObject;
  json: (schema: z.ZodType, description: string) => { description: string; content: Record<string, { schema: z.ZodType }> };
}

/**
 * The demo services for `/openapi.json`, one GET each, from the registry that declares them (api/demo/registry.ts).
 * @example const paths = { ...operationPaths, ...demoServiceOperations({ responses, json }) };
 */
export function demoServiceOperations(helpers: OperationHelpers): Record<string, Record<string, ZodOpenApiOperationObject>> {
  return Object.fromEntries(DEMO_SERVICES.map((service) => [service.path, { get: toDemoOperation(service, helpers) }]));
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
