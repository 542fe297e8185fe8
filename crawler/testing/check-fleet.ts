import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { Challenge } from 'mppx';
import type { ProblemCode } from '../../domain/check.ts';
import {
  TEMPO_USDC, toLenientPaymentRequiredHeader, toMppProblemBody, toPaymentRequiredHeader, toTempoChallenge, toV2Requirement,
} from '../../scripts/fleet/challenges.ts';

/*
 * Test support: a local fleet for sellers' checks, one known defect per endpoint (a valid x402 v2 challenge and a
 * valid MPP one without any), all on one host that also publishes `/.well-known/x402` and `/openapi.json`, whose
 * prices agree with the valid endpoint and disagree with `/price-mismatch`. `/redirect?to=URL` answers 307 to URL.
 */

/** One fleet endpoint: its path, the problems a check must find (code and where) and whether it is live. */
export interface CheckFleetCase {
  path: string;
  live: boolean;
  problems: Array<{ code: ProblemCode; where: string }>;
}

const PAY_TO = '0x1111111111111111111111111111111111111111';
const MPP_SECRET = 'check-fleet-secret';

type V2 = PaymentRequired;
type Answer = (url: string, realm: string) => { status?: number; headers: Record<string, string>; body: string };

const v2 = (url: string, change: (required: V2) => unknown = (required) => required) => {
  const required: V2 = { x402Version: 2, error: 'Payment required', resource: { url, mimeType: 'application/json' }, accepts: [toV2Requirement({ url, amount: '10000', description: 'Quotes' })] };
  return Buffer.from(JSON.stringify(change(required))).toString('base64');
};
const entry = (required: V2, change: Record<string, unknown>) => ({ ...required, accepts: [{ ...required.accepts[0], ...change }] });
const x402 = (header: string): ReturnType<Answer> => ({ headers: { 'payment-required': header, 'content-type': 'application/json' }, body: '{}' });
const mpp = (header: string): ReturnType<Answer> => ({ headers: { 'www-authenticate': header, 'content-type': 'application/problem+json' }, body: toMppProblemBody() });
const tempo = (realm: string, request: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  Challenge.serialize(Challenge.from({ secretKey: MPP_SECRET, realm, method: 'tempo', intent: 'charge', request: request as never, ...extra }));
const tempoRequest = { amount: '10000', currency: TEMPO_USDC, recipient: PAY_TO, methodDetails: { chainId: 4217 } };
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const ANSWERS: Record<string, Answer> = {
  '/valid-x402': (url) => ({ headers: { 'payment-required': toPaymentRequiredHeader({ url, amount: '10000', description: 'Quotes' }) }, body: '{}' }),
  '/valid-mpp': (url, realm) => mpp(toTempoChallenge({ url, amount: '10000', description: 'Quotes' }, realm)),
  '/free': () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"free":true}' }),
  '/bad-base64': () => x402('this is not base64!'),
  '/missing-field': (url) => x402(v2(url, (required) => entry(required, { payTo: undefined }))),
  '/version-mismatch': (url) => x402(v2(url, (required) => ({ ...required, x402Version: 1 }))),
  '/amount-decimal': (url) => x402(v2(url, (required) => entry(required, { amount: '0.01' }))),
  '/unknown-network': (url) => x402(v2(url, (required) => entry(required, { network: 'base-mainnet' }))),
  '/asset-not-usdc': (url) => x402(v2(url, (required) => entry(required, { asset: '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42' }))),
  '/bad-pay-to': (url) => x402(v2(url, (required) => entry(required, { payTo: 'alice' }))),
  '/no-timeout': (url) => x402(v2(url, (required) => entry(required, { maxTimeoutSeconds: undefined }))),
  '/resource-mismatch': (url) => x402(v2(`${new URL(url).origin}/elsewhere`)),
  '/accepts-empty': (url) => x402(encodePaymentRequiredHeader({ x402Version: 2, error: 'Payment required', resource: { url }, accepts: [] } as unknown as V2)),
  '/mpp-missing-param': (_url, realm) => mpp(`Payment realm="${realm}", method="tempo", intent="charge", request="${b64url(tempoRequest)}"`),
  '/mpp-not-base64url': (_url, realm) => mpp(`Payment id="abc", realm="${realm}", method="tempo", intent="charge", request="{\\"amount\\":\\"10000\\"}"`),
  '/mpp-request-invalid': (_url, realm) => mpp(`Payment id="abc", realm="${realm}", method="tempo", intent="charge", request="${b64url({ currency: TEMPO_USDC, recipient: PAY_TO })}"`),
  '/mpp-expired': (_url, realm) => mpp(tempo(realm, tempoRequest, { expires: '2020-01-01T00:00:00.000Z' })),
  '/mpp-no-recipient': (_url, realm) => mpp(tempo(realm, { amount: '10000', currency: TEMPO_USDC, methodDetails: { chainId: 4217 } })),
  '/testnet': (url) => x402(toPaymentRequiredHeader({ url, amount: '10000', description: 'Quotes' }, 0, 'base-sepolia')),
  '/lenient': (url) => x402(toLenientPaymentRequiredHeader({ url, amount: '10000', description: 'Quotes' })),
  '/price-mismatch': (url) => ({ headers: { 'payment-required': toPaymentRequiredHeader({ url, amount: '10000', description: 'Quotes' }) }, body: '{}' }),
};

const H = 'header PAYMENT-REQUIRED';
const W = 'header WWW-Authenticate, Payment challenge 1';

/** Every fleet endpoint with what a check must find there, and nothing else. */
export const CHECK_FLEET: readonly CheckFleetCase[] = [
  { path: '/valid-x402', live: true, problems: [] },
  { path: '/valid-mpp', live: true, problems: [] },
  { path: '/free', live: false, problems: [{ code: 'no_challenge', where: 'status 200' }] },
  { path: '/bad-base64', live: false, problems: [{ code: 'x402_invalid_json', where: H }] },
  { path: '/missing-field', live: false, problems: [{ code: 'x402_missing_field', where: `${H}, accepts[0].payTo` }] },
  { path: '/version-mismatch', live: false, problems: [{ code: 'x402_version_mismatch', where: `${H}, x402Version` }] },
  { path: '/amount-decimal', live: false, problems: [{ code: 'x402_amount_not_integer', where: `${H}, accepts[0].amount` }] },
  { path: '/unknown-network', live: true, problems: [{ code: 'x402_unknown_network', where: `${H}, accepts[0].network` }] },
  { path: '/asset-not-usdc', live: true, problems: [{ code: 'x402_asset_not_usdc', where: `${H}, accepts[0].asset` }] },
  { path: '/bad-pay-to', live: true, problems: [{ code: 'x402_pay_to_invalid', where: `${H}, accepts[0].payTo` }] },
  { path: '/no-timeout', live: true, problems: [{ code: 'x402_timeout_missing', where: `${H}, accepts[0].maxTimeoutSeconds` }] },
  { path: '/resource-mismatch', live: true, problems: [{ code: 'x402_resource_mismatch', where: `${H}, resource.url` }] },
  { path: '/accepts-empty', live: false, problems: [{ code: 'x402_accepts_empty', where: `${H}, accepts` }] },
  { path: '/mpp-missing-param', live: false, problems: [{ code: 'mpp_missing_param', where: `${W}, id` }] },
  { path: '/mpp-not-base64url', live: false, problems: [{ code: 'mpp_request_not_base64url', where: `${W}, request` }] },
  { path: '/mpp-request-invalid', live: false, problems: [{ code: 'mpp_request_invalid', where: `${W}, request.amount` }] },
  { path: '/mpp-expired', live: true, problems: [{ code: 'mpp_expired', where: `${W}, expires` }] },
  { path: '/mpp-no-recipient', live: true, problems: [{ code: 'mpp_recipient_missing', where: `${W}, request.recipient` }] },
  { path: '/testnet', live: true, problems: [{ code: 'testnet_only', where: 'offers' }] },
  { path: '/lenient', live: true, problems: [{ code: 'lenient_only', where: 'x402-v2-header' }] },
  {
    path: '/price-mismatch', live: true, problems: [
      { code: 'listed_price_mismatch', where: 'discovery /.well-known/x402, resources[1].accepts' },
      { code: 'listed_price_mismatch', where: 'discovery /openapi.json, paths./price-mismatch.get.x-payment-info' },
    ],
  },
];

/** The host's discovery documents: the valid endpoint at its live price, `/price-mismatch` at five times it. */
function toDocuments(origin: string): Record<string, unknown> {
  const accepts = (amount: string) => [{ ...toV2Requirement({ url: origin, amount, description: 'Quotes' }) }];
  return {
    '/.well-known/x402': {
      x402Version: 2, kind: 'resource-server', updated: '2026-11-01T00:00:00Z',
      resources: [{ resource: `${origin}/valid-x402`, accepts: accepts('10000') }, { resource: `${origin}/price-mismatch`, accepts: accepts('50000') }],
    },
    '/openapi.json': {
      openapi: '3.1.0', info: { title: 'Fleet', version: '1' }, servers: [{ url: origin }],
      paths: {
        '/valid-mpp': { get: { 'x-payment-info': { intent: 'charge', method: 'tempo', amount: '10000', currency: TEMPO_USDC }, responses: { 402: { description: 'Payment required' } } } },
        '/price-mismatch': { get: { 'x-payment-info': { protocols: [{ x402: {} }], price: { mode: 'fixed', amount: '0.05', currency: 'USD' } }, responses: { 402: { description: 'Payment required' } } } },
      },
    },
  };
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, headers).end(body);
}

/**
 * Starts the fleet on loopback; `requests` counts what it was asked.
 * @example const fleet = await startCheckFleet(); await check(`${fleet.origin}/free`); await fleet.close();
 */
export async function startCheckFleet(host = '127.0.0.1') {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const origin = `http://${req.headers.host}`;
    const path = new URL(req.url ?? '/', origin).pathname;
    const redirect = new URL(req.url ?? '/', origin).searchParams.get('to');
    if (path === '/redirect' && redirect) return send(res, 307, { location: redirect }, '');
    const document = toDocuments(origin)[path];
    if (document !== undefined) return send(res, 200, { 'content-type': 'application/json' }, JSON.stringify(document));
    const answer = ANSWERS[path];
    if (!answer) return send(res, 404, { 'content-type': 'application/json' }, '{"error":"not found"}');
    const { status = 402, headers, body } = answer(`${origin}${path}`, req.headers.host ?? host);
    send(res, status, headers, body);
  });
  server.on('connection', () => requests.push('connection'));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return { origin, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
