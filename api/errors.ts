import { HTTPError } from 'h3';
import type { ErrorCode } from '../domain/schemas.ts';

interface ApiErrorData {
  code: ErrorCode;
  endpoints?: string[];
  headers?: Record<string, string>;
}

/**
 * The one error a handler throws; `toErrorBody` renders it in the spec's Error shape.
 * @example throw apiError(404, 'not_found', 'No service with id "x". List services at /api/v1/services.');
 */
export function apiError(
  status: number,
  code: ErrorCode,
  message: string,
  extra: Omit<ApiErrorData, 'code'> = {},
): HTTPError<ApiErrorData> {
  return new HTTPError<ApiErrorData>({ status, message, data: { code, ...extra } });
}

export interface ErrorRendering {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: ErrorCode; message: string; endpoints?: string[] } };
}

/** Anything thrown, as the Error shape: our errors keep their code, h3's their status, the rest a bare 500. */
export function toErrorBody(error: unknown): ErrorRendering {
  const httpError = HTTPError.isError(error) ? (error as HTTPError<Partial<ApiErrorData>>) : undefined;
  const data = httpError?.data;
  if (httpError && data?.code) {
    const { code, endpoints, headers = {} } = data;
    const body = { error: { code, message: httpError.message, ...(endpoints ? { endpoints } : {}) } };
    return { status: httpError.status, headers, body };
  }
  if (httpError && httpError.status === 413) {
    return errorOf(413, 'invalid_json', 'The request body is over 64 KiB. Send a smaller JSON body.');
  }
  if (httpError && httpError.status >= 400 && httpError.status < 500) {
    return errorOf(httpError.status, 'not_found', 'The request could not be routed. See /openapi.json for the API.');
  }
  console.error(error);
  return errorOf(500, 'internal_error', 'Something went wrong on our side. Retry with backoff.');
}

function errorOf(status: number, code: ErrorCode, message: string): ErrorRendering {
  return { status, headers: {}, body: { error: { code, message } } };
}
