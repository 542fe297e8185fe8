import { assertBodySize, type H3Event } from 'h3';
import { apiError } from './errors.ts';

/** Request bodies over this size answer 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads the request body as a JSON object (or, with `allowArray`, an array, as a JSON-RPC batch is), or throws
 * `invalid_json` (413 when over 64 KiB).
 * @example const body = await readJsonObject(event);
 */
export async function readJsonObject(event: H3Event, options: { allowArray?: boolean } = {}): Promise<Record<string, unknown>> {
  assertBodySize(event, MAX_BODY_BYTES);
  const text = await event.req.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw apiError(400, 'invalid_json', 'The body is not valid JSON. Send a JSON object with Content-Type: application/json.');
  }
  if (typeof body !== 'object' || body === null || (Array.isArray(body) && !options.allowArray)) {
    throw apiError(400, 'invalid_json', 'The body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}
