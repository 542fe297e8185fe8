import { z } from 'zod';
import { DEMO_SERVICES } from '../demo/registry.ts';
import type { DemoService } from '../demo/service.ts';
import { declareOperation } from '../declaration.ts';
import { defineOperation, readPart, type FieldNamer, type Operation } from '../operation.ts';
import { PaymentRequired } from '../purchase/schemas.ts';

const paymentHeader = z.object({
  'payment-signature': z.string().optional().meta({ description: 'base64 x402 v2 payment payload.' }),
});

/**
 * A demo service as an operation: its query validated first (400 naming the parameter, before any challenge), then
 * its x402 answer (api/demo/answer.ts), loaded on the first call: the operation list is also read by the site's build
 * and the MCP server, which never answer one. Not an MCP tool: an agent buys one through the purchase tools.
 */
function toDemoOperation(service: DemoService): Operation {
  const declaration = declareOperation({
    id: service.id.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
    method: 'GET',
    path: service.path,
    group: 'demo',
    summary: `${service.description} x402 v2, ${service.price} USDC on Base Sepolia.`,
    input: { query: service.query, headers: paymentHeader },
    output: z.record(z.string(), z.unknown()).meta({ description: toAnswerDescription(service) }),
    errors: { '400': 'missing_query: a parameter missing, unknown or outside its enum, named; checked before any challenge.' },
    answers: {
      '402': {
        description: 'Unpaid, or the payment was refused: the challenge (also in PAYMENT-REQUIRED) with the reason in error.',
        schema: PaymentRequired,
      },
    },
  });
  return defineOperation(declaration, async ({ query, headers }, { deps, url }) => {
    if (!url) throw new Error('a demo service answers only over HTTP, where its challenge names the URL asked for');
    return (await import('../demo/answer.ts')).answerDemoCall(service, { params: query, payment: headers['payment-signature'], url }, deps);
  });
}

/** What a paid call answers, field by field as the catalog shows it. */
function toAnswerDescription(service: DemoService): string {
  const fields = Object.entries(service.returns).map(([name, type]) => `${name}: ${type}`).join('; ');
  return `Paid: the answer (PAYMENT-RESPONSE carries the settlement). ${fields}`;
}

/** Every demo service's operation, in catalog order. */
export const DEMO_OPERATIONS: readonly Operation[] = DEMO_SERVICES.map(toDemoOperation);

const byServiceId = new Map(DEMO_SERVICES.map((service, i) => [service.id, DEMO_OPERATIONS[i]!]));

/** A purchase names its parameters in its `params` body field. */
const purchaseParam: FieldNamer = (_part, field) => `The parameter "${field}"`;

/**
 * A purchase's parameters, read by the service's own query schema (api/demo/query.ts) with its defaults applied.
 * @example readDemoParams(webSearch, { query_id: 'x402-facilitators' }) // { query_id: 'x402-facilitators', max_results: 5 }
 */
export function readDemoParams(service: DemoService, given: Record<string, unknown>): Record<string, string | number> {
  return readPart(byServiceId.get(service.id)!, 'query', given, purchaseParam) as Record<string, string | number>;
}
