import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiOverrideContext,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import {
  BatchBody,
  BatchResult,
  ErrorResponse,
  ListQuery,
  ServiceDetail,
  ServiceList,
  Stats,
  Submission,
  SubmitBody,
  SubmitResult,
} from './schemas.ts';
import { purchaseOperations } from './purchase/openapi.ts';

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

function responses(ok: z.ZodType, okDescription: string, errors: Record<string, string>): ZodOpenApiResponsesObject {
  return {
    '200': { ...json(ok, okDescription), headers: rateLimitHeaders },
    ...Object.fromEntries(Object.entries(errors).map(([status, description]) => [status, error(description)])),
    '429': { ...error('rate_limited: over the limit; retry after Retry-After seconds.'), headers: retryHeaders },
    '500': error('Unexpected failure; safe to retry with backoff.'),
  };
}

const idParam = (description: string) => ({ path: z.object({ id: z.string().meta({ description }) }) });
const batchErrors = { '400': 'invalid_json, invalid_ids or missing_query.' };
const bodyTooLarge = { '413': 'invalid_json: body over 64 KiB.' };

const operations: Record<string, Record<string, ZodOpenApiOperationObject>> = {
  '/api/v1/services': {
    get: {
      operationId: 'listServices',
      summary: 'List and filter indexed services (live first, then by id), with offset paging.',
      requestParams: { query: ListQuery },
      responses: responses(ServiceList, 'One page of services.', {}),
    },
  },
  '/api/v1/services/batch': {
    post: {
      operationId: 'batchServices',
      summary: 'Look up 1-100 services by id, in the order requested.',
      requestBody: { required: true, content: { 'application/json': { schema: BatchBody } } },
      responses: responses(BatchResult, 'The services found and the ids missing.', { ...batchErrors, ...bodyTooLarge }),
    },
    get: {
      operationId: 'batchServicesByQuery',
      summary: 'The batch lookup for clients that cannot send a body.',
      requestParams: { query: z.object({ ids: z.string().meta({ description: '1-100 comma-separated ids.' }) }) },
      responses: responses(BatchResult, 'The services found and the ids missing.', batchErrors),
    },
  },
  '/api/v1/services/{id}': {
    get: {
      operationId: 'getService',
      summary: 'One service with its last 20 probes.',
      requestParams: idParam('Service id (case-insensitive).'),
      responses: responses(ServiceDetail, 'The service.', { '404': 'not_found: no such service.' }),
    },
  },
  '/api/v1/stats': {
    get: {
      operationId: 'getStats',
      summary: 'Census counts for the whole index.',
      responses: responses(Stats, 'The counts.', {}),
    },
  },
  '/api/v1/submit': {
    post: {
      operationId: 'submitService',
      summary: 'Submit a service for listing; it is listed once a crawl finds a valid payment challenge.',
      requestParams: { header: z.object({ 'Idempotency-Key': z.string().optional() }) },
      requestBody: { required: true, content: { 'application/json': { schema: SubmitBody } } },
      responses: responses(SubmitResult, 'Queued (or the earlier identical submission).', {
        '400': 'invalid_json or invalid_endpoint.',
        ...bodyTooLarge,
      }),
    },
  },
  '/api/v1/submissions/{id}': {
    get: {
      operationId: 'getSubmission',
      summary: "Follow a submission: queued, listed, or rejected with the reason.",
      requestParams: idParam('Submission id from the submit response.'),
      responses: responses(Submission, 'The submission.', { '404': 'not_found: no such submission.' }),
    },
  },
  ...purchaseOperations({ responses, json, idParam }),
};

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
    paths: operations,
  }, { override: allowAddedFields });
}

/**
 * Responses only ever gain fields within v1, so their objects must not forbid unknown properties (zod renders an
 * output object with `additionalProperties: false`); a client that validates strictly keeps working.
 */
function allowAddedFields({ jsonSchema, io }: ZodOpenApiOverrideContext): void {
  if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
}
