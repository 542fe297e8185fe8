/**
 * Diagnosing MPP `WWW-Authenticate: Payment` challenges for a seller, each one on its own. Whether the index accepts a
 * challenge is mppx's verdict (crawler/challenge.ts); the auth-params are read here to say which one is wrong, since
 * mppx answers only its first error and does not export its parser.
 */
import type { Problem } from '../../domain/check.ts';
import { findPaymentSchemes, readMppChallenges } from '../challenge.ts';
import { toMppOffer } from './offers.ts';
import { isRecord } from '../sources/read.ts';
import { toProblem } from '../../domain/problems.ts';
import type { Diagnosis } from './x402.ts';

const REQUIRED_PARAMS = ['id', 'realm', 'method', 'intent', 'request'] as const;
/** Methods whose charge pays an on-chain address, so the request must name it. */
const RECIPIENT_METHODS: ReadonlySet<string> = new Set(['tempo', 'evm']);
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * RFC 9110 auth-params of one challenge (`name=token` or `name="quoted string"`), names lower-cased.
 * @example readAuthParams('Payment id="a", realm=api.test') // { id: 'a', realm: 'api.test' }
 */
function readAuthParams(challenge: string): Record<string, string> {
  const params: Record<string, string> = {};
  const pattern = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))/g;
  for (const match of challenge.replace(/^\s*payment\s+/i, '').matchAll(pattern)) {
    params[match[1]!.toLowerCase()] = match[2] === undefined ? (match[3] ?? '') : match[2].replace(/\\(.)/g, '$1');
  }
  return params;
}

/**
 * Every Payment challenge of a `WWW-Authenticate` value with its problems; none when no Payment scheme is there.
 * @example diagnoseMpp(header, new Date()).map((d) => d.problems) // [[]] for a challenge mppx serialized
 */
export function diagnoseMpp(wwwAuthenticate: string, now: Date): Diagnosis[] {
  const starts = findPaymentSchemes(wwwAuthenticate);
  return starts.map((start, index) => {
    const chunk = wwwAuthenticate.slice(start, starts[index + 1]).replace(/,\s*$/, '');
    return diagnoseChallenge(chunk, `header WWW-Authenticate, Payment challenge ${index + 1}`, now);
  });
}

function diagnoseChallenge(chunk: string, where: string, now: Date): Diagnosis {
  const params = readAuthParams(chunk);
  const problems: Problem[] = REQUIRED_PARAMS.filter((name) => !params[name]?.trim())
    .map((name) => toProblem('mpp_missing_param', `${where}, ${name}`, `The Payment challenge has no "${name}" parameter.`));
  const request = readRequest(params.request, where, problems);
  const method = params.method?.trim().toLowerCase() || null;
  const intent = params.intent?.trim().toLowerCase() || null;
  if (request !== null && intent === 'charge') {
    for (const field of ['amount', 'currency']) {
      if (request[field] === undefined || request[field] === '') {
        problems.push(toProblem('mpp_request_invalid', `${where}, request.${field}`, `The charge request has no ${field}.`));
      }
    }
  }
  if (request !== null && method !== null && RECIPIENT_METHODS.has(method) && !request.recipient) {
    problems.push(toProblem('mpp_recipient_missing', `${where}, request.recipient`, `A ${method} challenge must name the recipient to pay; this request has none.`));
  }
  if (params.expires !== undefined) {
    const expires = Date.parse(params.expires);
    if (Number.isNaN(expires) || expires <= now.getTime()) {
      const message = Number.isNaN(expires) ? `expires "${params.expires.slice(0, 40)}" is not an RFC 3339 time.` : `The challenge expired at ${params.expires.slice(0, 40)}, before it was sent.`;
      problems.push(toProblem('mpp_expired', `${where}, expires`, message));
    }
  }
  const valid = readMppChallenges(chunk).valid;
  const decoded = { ...params, request: request ?? params.request ?? null };
  const offers = request === null ? [] : [toMppOffer({ method, intent, request })];
  return { challenge: { signal: 'mpp-header', valid, decoded, offers }, lenient: false, problems };
}

/** The decoded request object, or null with its problem added. */
function readRequest(value: string | undefined, where: string, problems: Problem[]): Record<string, unknown> | null {
  if (value === undefined || value.trim() === '') return null;
  if (!BASE64URL.test(value)) {
    problems.push(toProblem('mpp_request_not_base64url', `${where}, request`, 'The request parameter is not base64url without padding (it holds characters outside A-Z a-z 0-9 - _).'));
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    json = undefined;
  }
  if (!isRecord(json)) {
    problems.push(toProblem('mpp_request_invalid', `${where}, request`, 'The request decodes to no JSON object.'));
    return null;
  }
  return json;
}
