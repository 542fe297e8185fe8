/**
 * Diagnosing an x402 challenge for a seller: the decoded PaymentRequired (header or body) judged by @x402/core's own
 * schemas, then by the rules the schemas leave out (digit-string amounts, CAIP-2 networks, payTo addresses, the
 * resource URL). Pure; whether the index accepts the challenge is crawler/challenge.ts's verdict, reused here.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { PaymentRequiredV1Schema, PaymentRequiredV2Schema } from '@x402/core/schemas';
import { isAddress } from 'viem';
import type { CheckChallenge, Problem } from '../../domain/check.ts';
import { toCaip2, toChainName } from '../../domain/chains.ts';
import { readX402Body, readX402Header, toCanonicalBase64 } from '../challenge.ts';
import { toAssetSymbol } from '../normalize.ts';
import { toX402Offers } from './offers.ts';
import { isRecord } from '../sources/read.ts';
import { toProblem } from '../../domain/problems.ts';

/** A challenge as a check reports it, and whether it decoded only leniently (a strict client would not read it). */
export interface Diagnosis {
  challenge: CheckChallenge | null;
  lenient: boolean;
  problems: Problem[];
}

/** CAIP-2: `namespace:reference` (github.com/ChainAgnostic/CAIPs, caip-2). */
const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const SOLANA_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

const show = (value: unknown) => JSON.stringify(value)?.slice(0, 80) ?? 'nothing';

/**
 * Diagnoses a `PAYMENT-REQUIRED` header value.
 * @example diagnoseX402Header(header, 'https://api.example.com/quote').problems // [] for a challenge built by @x402/core
 */
export function diagnoseX402Header(value: string, requestedUrl: string): Diagnosis {
  const where = 'header PAYMENT-REQUIRED';
  const canonical = toCanonicalBase64(value);
  let json: unknown;
  try {
    json = decodePaymentRequiredHeader(canonical ?? value);
  } catch {
    json = undefined;
  }
  if (!isRecord(json)) {
    const message = 'The PAYMENT-REQUIRED header is not base64 of a JSON object, so no client can read it.';
    return { challenge: null, lenient: false, problems: [toProblem('x402_invalid_json', where, message)] };
  }
  const read = readX402Header(value);
  const problems: Problem[] = [];
  if (json.x402Version !== 2 && json.x402Version !== '2') {
    problems.push(toProblem('x402_version_mismatch', `${where}, x402Version`, `The header says x402Version ${show(json.x402Version)}; the PAYMENT-REQUIRED header is x402 v2 only.`));
  }
  problems.push(...diagnosePaymentRequired(json, 2, where, requestedUrl));
  const lenient = read.valid && (canonical !== value || json.x402Version === '2');
  return { challenge: { signal: 'x402-v2-header', valid: read.valid, decoded: json, offers: toX402Offers(json) }, lenient, problems };
}

/**
 * Diagnoses a 402 body as an x402 v1 challenge or a v2 copy; no challenge when the body says nothing of x402.
 * @example diagnoseX402Body('{"x402Version":1,"accepts":[…]}', false, url).challenge?.signal // 'x402-v1-body'
 */
export function diagnoseX402Body(body: string, truncated: boolean, requestedUrl: string): Diagnosis {
  const none: Diagnosis = { challenge: null, lenient: false, problems: [] };
  if (!/"x402Version"/.test(body)) return none;
  let json: unknown;
  try {
    json = truncated ? undefined : JSON.parse(body);
  } catch {
    json = undefined;
  }
  if (!isRecord(json)) {
    const message = truncated ? 'The body names x402Version but is cut off past the size limit, so it cannot be read.' : 'The body names x402Version but is not a JSON object.';
    return { challenge: null, lenient: false, problems: [toProblem('x402_invalid_json', 'body', message)] };
  }
  const stated = Number(json.x402Version);
  const problems: Problem[] = [];
  const version = stated === 1 || stated === 2 ? stated : hasV2Fields(json) ? 2 : 1;
  if (stated !== version) {
    problems.push(toProblem('x402_version_mismatch', 'body, x402Version', `The body says x402Version ${show(json.x402Version)}; a challenge body is x402 v1 (or a copy of the v2 header).`));
  }
  problems.push(...diagnosePaymentRequired(json, version, 'body', requestedUrl));
  const read = readX402Body(json);
  const signal = version === 2 ? 'x402-v2-body' : 'x402-v1-body';
  const lenient = read.valid && (version === 2 || typeof json.x402Version === 'string');
  return { challenge: { signal, valid: read.valid, decoded: json, offers: toX402Offers(json) }, lenient, problems };
}

function hasV2Fields(json: Record<string, unknown>): boolean {
  return isRecord(json.resource) || (Array.isArray(json.accepts) && json.accepts.some((entry) => isRecord(entry) && 'amount' in entry));
}

/** Every problem of a decoded PaymentRequired of `version`, found at `where`. */
function diagnosePaymentRequired(json: Record<string, unknown>, version: 1 | 2, where: string, requestedUrl: string): Problem[] {
  const accepts = json.accepts;
  if (!Array.isArray(accepts) || accepts.length === 0) {
    const signIn = isRecord(json.extensions) && json.extensions['sign-in-with-x'] !== undefined;
    const message = signIn ? 'accepts is empty: this 402 asks to sign in (sign-in-with-x), not to pay.' : 'accepts is missing or empty: the challenge offers no way to pay.';
    return [toProblem('x402_accepts_empty', `${where}, accepts`, message)];
  }
  const problems = [...diagnoseWithSchema(json, version, where)];
  accepts.forEach((entry, index) => {
    if (isRecord(entry)) problems.push(...diagnoseEntry(entry, version, `${where}, accepts[${index}]`));
  });
  problems.push(...diagnoseResource(json, version, where, requestedUrl));
  return dedupe(problems);
}

/** Missing fields and timeouts, as @x402/core's schema of the version sees them. */
function diagnoseWithSchema(json: Record<string, unknown>, version: 1 | 2, where: string): Problem[] {
  const schema = version === 2 ? PaymentRequiredV2Schema : PaymentRequiredV1Schema;
  const parsed = schema.safeParse({ ...json, x402Version: version });
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((issue): Problem[] => {
    const path = issue.path.map(String);
    const field = path.at(-1) ?? '';
    const at = `${where}, ${toFieldPath(path)}`;
    if (field === 'maxTimeoutSeconds') {
      return [toProblem('x402_timeout_missing', at, 'maxTimeoutSeconds is missing or not a positive number: @x402/core refuses the challenge without it.')];
    }
    // Amounts and networks have rules of their own below; the resource's optional fields are dropped softly by clients.
    if (['amount', 'maxAmountRequired', 'network'].includes(field) && readAt(json, path) !== undefined) return [];
    if (path[0] === 'resource' && path.length > 1 && field !== 'url') return [];
    const entry = path[0] === 'accepts' ? readAt(json, path.slice(0, 2)) : undefined;
    const otherPrice = field === 'amount' ? 'maxAmountRequired' : field === 'maxAmountRequired' ? 'amount' : null;
    if (otherPrice !== null && isRecord(entry) && entry[otherPrice] !== undefined) {
      return [toProblem('x402_version_mismatch', at, `An x402 v${version} entry states its price in ${otherPrice}, the field of x402 v${version === 2 ? 1 : 2}; v${version} reads ${field}.`)];
    }
    if (path[0] === 'accepts' && path.length === 1) return [];
    const state = readAt(json, path) === undefined ? 'is missing' : `is not valid (${issue.message})`;
    return [toProblem('x402_missing_field', at, `${toFieldPath(path)} ${state}: @x402/core refuses the challenge without it.`)];
  });
}

function diagnoseEntry(entry: Record<string, unknown>, version: 1 | 2, where: string): Problem[] {
  const problems: Problem[] = [];
  const priceField = version === 2 ? 'amount' : 'maxAmountRequired';
  const amount = entry[priceField];
  if (amount !== undefined && (typeof amount !== 'string' || !/^\d+$/.test(amount))) {
    problems.push(toProblem('x402_amount_not_integer', `${where}.${priceField}`, `The amount ${show(amount)} is not a whole number of atomic units written as digits.`));
  }
  const network = typeof entry.network === 'string' ? entry.network.trim() : null;
  if (network === null) return problems;
  const known = version === 2 ? CAIP2.test(network) : toCaip2(network) !== null;
  if (!known) {
    const expected = version === 2 ? 'a CAIP-2 id such as eip155:8453' : 'an x402 v1 network name such as base';
    problems.push(toProblem('x402_unknown_network', `${where}.network`, `The network "${network.slice(0, 80)}" is not ${expected}: no client knows where to pay.`));
    return problems;
  }
  const chain = toChainName(network);
  const asset = typeof entry.asset === 'string' ? entry.asset : null;
  if (asset !== null && toCaip2(chain) !== null && toAssetSymbol(chain, asset) !== 'USDC') {
    problems.push(toProblem('x402_asset_not_usdc', `${where}.asset`, `The asset ${show(asset)} is not USDC on ${chain}.`));
  }
  const payTo = entry.payTo;
  if (typeof payTo === 'string' && payTo.trim() !== '' && !isPayableAddress(chain, payTo)) {
    problems.push(toProblem('x402_pay_to_invalid', `${where}.payTo`, `payTo ${show(payTo)} is not an address on ${chain}.`));
  }
  return problems;
}

/** Whether `payTo` is an address on the chain's namespace; chains of other namespaces are not judged. */
function isPayableAddress(chain: string, payTo: string): boolean {
  const caip2 = toCaip2(chain) ?? chain;
  if (caip2.startsWith('eip155:')) return isAddress(payTo, { strict: false });
  if (caip2.startsWith('solana:')) return SOLANA_KEY.test(payTo);
  return true;
}

/** The resource paid for against the URL requested (query aside): v2's `resource.url`, v1's `accepts[].resource`. */
function diagnoseResource(json: Record<string, unknown>, version: 1 | 2, where: string, requestedUrl: string): Problem[] {
  const stated = version === 2
    ? [{ at: `${where}, resource.url`, url: isRecord(json.resource) ? json.resource.url : undefined }]
    : (json.accepts as unknown[]).map((entry, index) => ({ at: `${where}, accepts[${index}].resource`, url: isRecord(entry) ? entry.resource : undefined }));
  return stated.flatMap(({ at, url }) => {
    if (typeof url !== 'string' || url.trim() === '' || isSameResource(url, requestedUrl)) return [];
    return [toProblem('x402_resource_mismatch', at, `The challenge is for ${show(url)}, not for the URL requested (${requestedUrl.slice(0, 200)}).`)];
  });
}

function isSameResource(stated: string, requested: string): boolean {
  if (!URL.canParse(stated) || !URL.canParse(requested)) return false;
  const [a, b] = [new URL(stated), new URL(requested)];
  return a.origin === b.origin && a.pathname.replace(/\/$/, '') === b.pathname.replace(/\/$/, '');
}

function readAt(json: unknown, path: string[]): unknown {
  return path.reduce<unknown>((value, key) => (isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined), json);
}

/** `accepts[0].payTo` from `['accepts', '0', 'payTo']`. */
function toFieldPath(path: string[]): string {
  return path.map((key, index) => (/^\d+$/.test(key) ? `[${key}]` : index === 0 ? key : `.${key}`)).join('');
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => !seen.has(`${problem.code} ${problem.where}`) && seen.add(`${problem.code} ${problem.where}`));
}
