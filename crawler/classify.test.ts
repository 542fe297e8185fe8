import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyProbe, type ProbeFacts, type ProbeResult, type ResponseHeaders } from './classify.ts';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/challenges/${name}`, import.meta.url), 'utf8').trim();
const base64 = (json: unknown): string => Buffer.from(JSON.stringify(json)).toString('base64');
const base64url = (json: unknown): string => Buffer.from(JSON.stringify(json)).toString('base64url');

const V2_HEADER = fixture('x402-v2-payment-required-header.l402-space-x402-ping.txt');
const V2_DECODED = JSON.parse(fixture('x402-v2-payment-required-decoded.l402-space-x402-ping.json')) as Record<string, unknown>;
const MPP_STRIPE = fixture('mpp-stripe-charge-www-authenticate.governance-taskhawktech-com.txt');
const MPP_STRIPE_BODY = fixture('mpp-stripe-charge-body.governance-taskhawktech-com.json');
const MPP_TEMPO_SESSION = fixture('mpp-tempo-session-www-authenticate.openai-mpp-tempo-xyz.txt');

const requirement = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '5000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x1111111111111111111111111111111111111111',
  maxTimeoutSeconds: 300,
  extra: { name: 'USDC', version: '2' },
};
const paymentRequired = { x402Version: 2, resource: { url: 'https://a.test/q' }, accepts: [requirement] };
const tempoCharge = (request: unknown, extra = ''): string =>
  `Payment id="abc", realm="a.test", method="tempo", intent="charge", request="${base64url(request)}"${extra}`;
const TEMPO_REQUEST = {
  amount: '20000',
  currency: '0x20c000000000000000000000b9537d11c60e8b50',
  recipient: '0x2222222222222222222222222222222222222222',
  methodDetails: { chainId: 4217 },
};

const answered = (status: number, headers: ResponseHeaders = {}, body = '', truncatedAtBytes: number | null = null): ProbeFacts => ({
  outcome: 'answered',
  status,
  headers,
  body,
  truncatedAtBytes,
});
const on402 = (headers: ResponseHeaders, body = '{}'): ProbeFacts => answered(402, { 'content-type': 'application/json', ...headers }, body);

type Expected = Partial<Pick<ProbeResult, 'ok' | 'reason' | 'detected_rails' | 'signals'>> & {
  terms?: Partial<NonNullable<ProbeResult['terms']>> | null;
  notes?: string[];
};
const ok = (rails: string[], terms: Expected['terms'] = {}, rest: Expected = {}): Expected => ({ ok: true, reason: null, detected_rails: rails as never, terms, ...rest });
const notOk = (reason: string): Expected => ({ ok: false, reason, detected_rails: [], terms: null });
const usd = (value: number, display: string) => ({ price: { usd: value, display } });

const V1_FIXTURES: Array<[file: string, usd: number]> = [
  ['x402-v1-body.api-aixbt-tech-v1-agents-indigo.json', 2],
  ['x402-v1-body.api-itsgloria-ai-news.json', 0.01],
  ['x402-v1-body.places-api-x402hub-xyz-api-places-text-search.json', 0.01],
  ['x402-v1-body.staging-echo-merit-systems-api-v1-base-payment-link.json', 1],
  ['x402-v1-body.staging-toolkit-dev-api-tool-e2b-run-code.json', 0.05],
  ['x402-v1-body.true-cast-agent-vercel-app-api-truecast.json', 0.1],
  ['x402-v1-body.www-remixme-xyz-api-generate-custom.json', 1],
  ['x402-v1-body.www-remixme-xyz-api-generate-daily.json', 0.5],
];

const CASES: Array<[name: string, facts: ProbeFacts, expected: Expected]> = [
  // x402 v2 header
  ['real v2 header (two chains)', on402({ 'payment-required': V2_HEADER }), ok(['x402'], { rails: ['x402'], chains: ['base', 'solana'], assets: ['USDC'], ...usd(0.01, '$0.01 / call') }, { signals: ['x402-v2-header'], notes: [] })],
  ['v2 header as base64url without padding', on402({ 'payment-required': base64url({ ...paymentRequired, error: '~~~???>>>' }) }), ok(['x402'], {}, { notes: ['non-canonical base64'] })],
  ['v2 header with x402Version "2"', on402({ 'payment-required': base64({ ...paymentRequired, x402Version: '2' }) }), ok(['x402'], { chains: ['base-sepolia'], ...usd(0.005, '$0.005 / call') }, { notes: ['x402Version is a string', 'fails the @x402/core schema'] })],
  ['v2 header without resource (section 7 does not need it)', on402({ 'payment-required': base64({ x402Version: 2, accepts: [requirement] }) }), ok(['x402'], {}, { notes: ['fails the @x402/core schema'] })],
  ['v2 header with an upto offer has no price', on402({ 'payment-required': base64({ ...paymentRequired, accepts: [{ ...requirement, scheme: 'upto' }] }) }), ok(['x402'], { price: { usd: null, display: null } })],
  ['v2 header not base64', on402({ 'payment-required': '%%% not base64 %%%' }), notOk('unreadable PAYMENT-REQUIRED header')],
  ['v2 header base64 but not JSON', on402({ 'payment-required': Buffer.from('hello').toString('base64') }), notOk('unreadable PAYMENT-REQUIRED header')],
  ['v1 JSON in the v2 header', on402({ 'payment-required': base64({ x402Version: 1, accepts: [] }) }), notOk('PAYMENT-REQUIRED header is not x402 v2')],
  ['v2 header with accepts: []', on402({ 'payment-required': base64({ ...paymentRequired, accepts: [] }) }), notOk('402 without accepts')],
  ['v2 header for sign-in-with-x only', on402({ 'payment-required': base64({ ...paymentRequired, accepts: [], extensions: { 'sign-in-with-x': { info: {} } } }) }), notOk('402 for sign-in only, no accepts')],
  ['v2 header entry without payTo', on402({ 'payment-required': base64({ ...paymentRequired, accepts: [{ ...requirement, payTo: undefined }] }) }), notOk('402 with incomplete accepts')],
  ['v2 header amount not a digit string', on402({ 'payment-required': base64({ ...paymentRequired, accepts: [{ ...requirement, amount: '0.005' }] }) }), notOk('402 with incomplete accepts')],
  ['valid header wins over a garbage body', on402({ 'payment-required': V2_HEADER }, '<<garbage'), ok(['x402'])],
  // bodies
  ...V1_FIXTURES.map(([file, price]): [string, ProbeFacts, Expected] => [
    `real v1 body ${file}`,
    on402({}, fixture(file)),
    ok(['x402'], { chains: ['base'], assets: ['USDC'], price: expect.objectContaining({ usd: price }) }, { signals: ['x402-v1-body'] }),
  ]),
  ['real v1 body with an empty payTo', on402({}, fixture('x402-v1-body.ai-api-sbx-aeon-xyz-open-ai-402-payment.json')), notOk('402 with incomplete accepts')],
  ['v1 body with accepts: []', on402({}, JSON.stringify({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [] })), notOk('402 without accepts')],
  ['v2 copy in the body only', on402({}, JSON.stringify(V2_DECODED)), ok(['x402'], { chains: ['base', 'solana'] }, { signals: ['x402-v2-body'], notes: ['x402 v2 challenge in the body'] })],
  // MPP
  ['real MPP stripe header with its problem body', on402({ 'www-authenticate': MPP_STRIPE, 'content-type': 'application/problem+json' }, MPP_STRIPE_BODY), ok(['mpp'], { chains: [], assets: ['USD'], ...usd(0.5, '$0.5 / call') }, { signals: ['mpp-header'] })],
  ['real MPP problem body without its header', on402({}, MPP_STRIPE_BODY), notOk('402 without accepts')],
  ['real MPP tempo session header', on402({ 'www-authenticate': MPP_TEMPO_SESSION }), ok(['mpp'], { chains: ['tempo'], assets: ['USDC'], ...usd(0.01, '$0.01 / call') })],
  ['MPP challenges joined with Bearer', on402({ 'www-authenticate': ['Bearer realm="a.test", error="invalid_token"', tempoCharge(TEMPO_REQUEST), MPP_STRIPE] }), ok(['mpp'], { chains: ['tempo'], assets: ['USD', 'USDC'], ...usd(0.02, '$0.02 / call') })],
  ['tempo MPP without chainId names no chain', on402({ 'www-authenticate': tempoCharge({ ...TEMPO_REQUEST, methodDetails: undefined }) }), ok(['mpp'], { chains: [], assets: [TEMPO_REQUEST.currency], price: { usd: null, display: null } })],
  ['MPP testnet chainId', on402({ 'www-authenticate': tempoCharge({ ...TEMPO_REQUEST, currency: '0x20c0000000000000000000000000000000000000', methodDetails: { chainId: 42431 } }) }), ok(['mpp'], { chains: ['tempo-testnet'], assets: ['pathUSD'] })],
  ['MPP request not base64url JSON', on402({ 'www-authenticate': 'Payment id="a", realm="a.test", method="tempo", intent="charge", request="!!"' }), notOk('malformed Payment challenge')],
  ['MPP charge without amount', on402({ 'www-authenticate': tempoCharge({ currency: TEMPO_REQUEST.currency }) }), notOk('malformed Payment challenge')],
  ['MPP without realm', on402({ 'www-authenticate': 'Payment id="a", method="tempo", intent="charge", request="e30"' }), notOk('malformed Payment challenge')],
  ['Bearer only', on402({ 'www-authenticate': 'Bearer realm="a.test"' }), notOk('402 without a valid challenge')],
  ['x402 and MPP on one 402', on402({ 'payment-required': base64(paymentRequired), 'www-authenticate': tempoCharge(TEMPO_REQUEST) }), ok(['mpp', 'x402'], { chains: ['base-sepolia', 'tempo'], ...usd(0.005, '$0.005 / call') }, { signals: ['x402-v2-header', 'mpp-header'] })],
  ['unreadable x402 header next to a valid MPP one', on402({ 'payment-required': '%%%', 'www-authenticate': tempoCharge(TEMPO_REQUEST) }), ok(['mpp'])],
  // not a challenge
  ['HTML paywall', answered(402, { 'content-type': 'text/html; charset=utf-8' }, '<!doctype html><h1>Payment Required</h1>'), notOk('HTML paywall, no challenge header')],
  ['generic billing 402', on402({}, JSON.stringify({ error: 'insufficient credits' })), notOk('402 without a valid challenge')],
  ['empty 402', answered(402), notOk('402 without a valid challenge')],
  ['402 body cut at the limit', answered(402, { 'content-type': 'application/json' }, '{"x402Version":1,"accepts":[  ', 65_536), notOk('body over 64 KiB')],
  ['401', answered(401, { 'www-authenticate': 'Bearer realm="a.test"' }), notOk('answered 401')],
  ['403', answered(403), notOk('answered 403')],
  ['200 without a challenge', answered(200, {}, '{"quote":1}'), notOk('answered 200 without a challenge')],
  ['200 with a challenge header is still not a 402', answered(200, { 'payment-required': V2_HEADER }), notOk('answered 200 without a challenge')],
  ['404', answered(404), notOk('answered 404')],
  ['500', answered(500), notOk('answered 500')],
  // no answer
  ['timeout', { outcome: 'failed', failure: { kind: 'timeout', limitMs: 10_000 } }, notOk('timed out after 10 s')],
  ['short timeout', { outcome: 'failed', failure: { kind: 'timeout', limitMs: 500 } }, notOk('timed out after 0.5 s')],
  ['connect timeout', { outcome: 'failed', failure: { kind: 'connect-timeout', limitMs: 5_000 } }, notOk('connect timed out after 5 s')],
  ['DNS', { outcome: 'failed', failure: { kind: 'dns' } }, notOk('DNS lookup failed')],
  ['blocked', { outcome: 'failed', failure: { kind: 'blocked', message: 'refused: private address' } }, notOk('refused: private address')],
  ['refused', { outcome: 'failed', failure: { kind: 'refused' } }, notOk('connection refused')],
  ['reset', { outcome: 'failed', failure: { kind: 'reset' } }, notOk('connection reset')],
  ['TLS', { outcome: 'failed', failure: { kind: 'tls' } }, notOk('TLS handshake failed')],
  ['bad response', { outcome: 'failed', failure: { kind: 'bad-response' } }, notOk('invalid HTTP response')],
  ['huge headers', { outcome: 'failed', failure: { kind: 'headers-too-large', limitBytes: 65_536 } }, notOk('headers over 64 KiB')],
  ['redirects', { outcome: 'failed', failure: { kind: 'too-many-redirects' } }, notOk('too many redirects')],
  ['unreachable host', { outcome: 'failed', failure: { kind: 'network', code: 'EHOSTUNREACH' } }, notOk('host unreachable')],
  ['other network error', { outcome: 'failed', failure: { kind: 'network', code: 'EPROTO' } }, notOk('request failed (EPROTO)')],
];

describe('classifyProbe', () => {
  it.each(CASES)('%s', (_name, facts, expected) => {
    const { terms, ...rest } = expected;
    const result = classifyProbe(facts);
    expect(result).toMatchObject(rest);
    if (terms === null) expect(result.terms).toBeNull();
    else if (terms !== undefined) expect(result.terms).toMatchObject(terms);
  });

  it('keeps names that are also object properties (constructor, __proto__) as the unknown names they are', () => {
    // Chain names read underscores as hyphens, so `__proto__` is kept as the chain `-proto-`.
    const cases = [['constructor', 'constructor'], ['toString', 'tostring'], ['hasOwnProperty', 'hasownproperty'], ['__proto__', '-proto-']];
    for (const [word, chain] of cases) {
      const accepts = [{ scheme: 'exact', network: word, amount: '10000', payTo: '0xabc', asset: word, resource: 'https://a.test/x' }];
      const result = classifyProbe(on402({ 'payment-required': base64({ x402Version: 2, accepts }) }));
      expect(result, word).toMatchObject({ ok: true, terms: { chains: [chain], assets: [word], price: { usd: null } } });
    }
  });
});
