import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiOverrideContext,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { ErrorResponse } from '../domain/schemas.ts';
import type { BearerScheme } from './declaration.ts';
import type { Operation } from './operation.ts';
import { OPERATIONS } from './operations/index.ts';

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
const error = (description: string) => json(ErrorResponse, description);

const rateLimitHeaders = z.object({
  'RateLimit-Limit': z.string().meta({ description: 'Requests allowed per window.' }),
  'RateLimit-Policy': z.string().meta({ description: '<limit>;w=<window-seconds>' }),
  'RateLimit-Remaining': z.string().meta({ description: 'Requests left in this window.' }),
});
const retryHeaders = rateLimitHeaders.extend({
  'Retry-After': z.string().meta({ description: 'Seconds until a request is allowed again.' }),
});

/** What each bearer secret is and where it comes from. */
const BEARER_SCHEMES: Record<BearerScheme, { type: 'http'; scheme: 'bearer'; description: string }> = {
  claimSecret: { type: 'http', scheme: 'bearer', description: 'The claim_secret (clms_…) POST /api/v1/claims answered with the claim, once.' },
  ownerKey: { type: 'http', scheme: 'bearer', description: 'The owner_key (psi_…) a verified claim answered, once.' },
};

function responses(ok: z.ZodType, okDescription: string, errors: Record<string, string>, status = 200): ZodOpenApiResponsesObject {
  return {
    [String(status)]: { ...json(ok, okDescription), headers: rateLimitHeaders },
    ...Object.fromEntries(Object.entries(errors).map(([status, description]) => [status, error(description)])),
    '429': { ...error('rate_limited: over the limit; retry after Retry-After seconds.'), headers: retryHeaders },
    '500': error('Unexpected failure; safe to retry with backoff.'),
  };
}

/** An operation of the list as OpenAPI describes it. */
function toOpenApiOperation(operation: Operation): ZodOpenApiOperationObject {
  const { path, query, headers, body } = operation.input;
  return {
    operationId: operation.id,
    summary: operation.summary,
    ...(operation.tool ? { 'x-mcp-tool': operation.tool.name } : {}),
    ...(operation.bearer ? { security: [{ [operation.bearer]: [] }] } : {}),
    requestParams: { ...(path ? { path } : {}), ...(query ? { query } : {}), ...(headers ? { header: headers } : {}) },
    ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
    responses: { ...responses(operation.output, 'The answer.', operation.errors, operation.status), ...toAnswers(operation) },
  };
}

function toPaths(): Record<string, Record<string, ZodOpenApiOperationObject>> {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const operation of OPERATIONS) {
    paths[operation.path] = { ...paths[operation.path], [operation.method.toLowerCase()]: toOpenApiOperation(operation) };
  }
  return paths;
}

function toAnswers(operation: Operation): ZodOpenApiResponsesObject {
  return Object.fromEntries(Object.entries(operation.answers ?? {}).map(([status, { schema, description }]) => [status, json(schema, description)]));
}

/**
 * The OpenAPI 3.1 document of the API, generated from the zod schemas.
 * @example const document = createOpenApiDocument('https://index.example');
 */
export function createOpenApiDocument(baseUrl: string | null): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Payable-Service Index API',
      version: '1.0.0',
      description:
        'A public index of HTTP services an agent can pay for with stablecoins (x402, MPP, ACP). Free to read, no key, open CORS.',
    },
    ...(baseUrl ? { servers: [{ url: baseUrl }] } : {}),
    paths: toPaths(),
    components: { securitySchemes: BEARER_SCHEMES },
  }, { override: allowAddedFields });
}

/**
 * Responses only ever gain fields within v1, so their objects must not forbid unknown properties (zod renders an
 * output object with `additionalProperties: false`); a client that validates strictly keeps working.
 */
function allowAddedFields({ jsonSchema, io }: ZodOpenApiOverrideContext): void {
  if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
}
