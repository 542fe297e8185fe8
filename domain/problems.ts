/**
 * The problems a check reports: each stable code with its severity, the rule of the specification it breaks, and the
 * fix. Severity: `error` when no client can pay from the challenge as written (or the index does not accept it),
 * `warning` when it is accepted but some clients or facilitators refuse or misread it, `info` for what is worth knowing.
 */
import type { Problem, ProblemCode, Severity } from './check.ts';

interface ProblemRule {
  severity: Severity;
  rule: string;
  fix: string;
}

const X402_V2 = 'x402 v2 specification (specs/x402-specification-v2.md)';
const MPP_CORE = 'MPP HTTP Payment authentication (draft-httpauth-payment-00)';

export const PROBLEM_RULES: Readonly<Record<ProblemCode, ProblemRule>> = {
  no_challenge: {
    severity: 'error',
    rule: 'x402 and MPP: an unpaid request is answered 402 with a PAYMENT-REQUIRED header (x402 v2), an x402 JSON body (v1) or WWW-Authenticate: Payment (MPP).',
    fix: 'Answer the unpaid request with status 402 and a challenge; check the route matches the method you list and that your facilitator (/supported) loads.',
  },
  x402_invalid_json: {
    severity: 'error',
    rule: `${X402_V2}, HTTP transport: PAYMENT-REQUIRED is standard base64 (RFC 4648, padded) of a UTF-8 JSON PaymentRequired.`,
    fix: 'Encode the PaymentRequired object with encodePaymentRequiredHeader from @x402/core/http (base64 of JSON).',
  },
  x402_missing_field: {
    severity: 'error',
    rule: `${X402_V2}, PaymentRequired and PaymentRequirements (v1: PaymentRequirementsV1): required fields, as @x402/core's schemas check them.`,
    fix: 'Add the missing field; build the challenge with @x402/core so every required field is present.',
  },
  x402_version_mismatch: {
    severity: 'error',
    rule: 'x402: the PAYMENT-REQUIRED header carries x402Version 2 with `amount`; a v1 body carries x402Version 1 with `maxAmountRequired`.',
    fix: 'Send x402Version 2 (number) in the header with v2 fields, or a v1 body with v1 fields; do not mix them.',
  },
  x402_amount_not_integer: {
    severity: 'error',
    rule: `${X402_V2}: \`amount\` (v1 \`maxAmountRequired\`) is the price in the asset's atomic units, a string of digits.`,
    fix: 'Write the amount in atomic units as a digit string: $0.01 in USDC (6 decimals) is "10000".',
  },
  x402_unknown_network: {
    severity: 'error',
    rule: 'x402 network identifiers: v2 names networks by CAIP-2 (`eip155:8453`); v1 by the SDK\'s names (`base`).',
    fix: 'Name the network as a CAIP-2 id in v2 (eip155:8453 for Base, eip155:84532 for Base Sepolia), or a known v1 name.',
  },
  x402_asset_not_usdc: {
    severity: 'info',
    rule: 'x402 `exact` scheme on EVM: facilitators settle EIP-3009 tokens; the public ones list USDC for each network.',
    fix: 'Check that your facilitator settles this asset (GET /supported); most buyers hold USDC.',
  },
  x402_pay_to_invalid: {
    severity: 'error',
    rule: 'x402 `exact` scheme: `payTo` is an address on the offer\'s network (EVM: 0x and 40 hex digits; Solana: a base58 key).',
    fix: 'Set payTo to the receiving address of your wallet on that network.',
  },
  x402_timeout_missing: {
    severity: 'warning',
    rule: `${X402_V2}: \`maxTimeoutSeconds\` (a positive number) is required; @x402/core's schemas refuse a challenge without it.`,
    fix: 'Add maxTimeoutSeconds (for example 300) to every accepts entry.',
  },
  x402_resource_mismatch: {
    severity: 'warning',
    rule: `${X402_V2}: \`resource.url\` (v1: accepts[].resource) is the URL paid for; mppx refuses a challenge whose resource differs from the URL requested.`,
    fix: 'Set the resource URL to the URL the client requests (scheme, host and path).',
  },
  x402_accepts_empty: {
    severity: 'error',
    rule: `${X402_V2}: \`accepts\` lists at least one way to pay; a 402 with accepts [] (sign-in only) is no payment challenge.`,
    fix: 'List at least one PaymentRequirements entry in accepts.',
  },
  mpp_missing_param: {
    severity: 'error',
    rule: `${MPP_CORE}: a Payment challenge carries id, realm, method, intent and request.`,
    fix: 'Send every required auth-param; Challenge.serialize from mppx writes them all.',
  },
  mpp_request_not_base64url: {
    severity: 'error',
    rule: `${MPP_CORE}: \`request\` is base64url without padding of JCS-canonical JSON.`,
    fix: 'Encode the request JSON as base64url without padding (PaymentRequest.serialize in mppx).',
  },
  mpp_request_invalid: {
    severity: 'error',
    rule: 'MPP charge intent (draft-payment-intent-charge-00): the decoded request is a JSON object with `amount` (base units) and `currency`.',
    fix: 'Put amount (a digit string in base units) and currency (token address or ISO 4217 code) in the request.',
  },
  mpp_expired: {
    severity: 'error',
    rule: `${MPP_CORE}: \`expires\` is an RFC 3339 time in the future; clients refuse an expired challenge.`,
    fix: 'Issue a fresh challenge for every unpaid request, with expires a few minutes ahead.',
  },
  mpp_recipient_missing: {
    severity: 'error',
    rule: 'MPP Tempo and EVM charge methods (draft-tempo-charge-00): the request names its `recipient`.',
    fix: 'Add recipient (the receiving address) to the request.',
  },
  listed_price_mismatch: {
    severity: 'warning',
    rule: 'x402 discovery (/.well-known/x402) and MPP discovery (x-payment-info in /openapi.json): the prices published are the prices the live challenge asks.',
    fix: 'Publish the same price in your discovery documents as your challenge asks, or change one to match the other.',
  },
  testnet_only: {
    severity: 'warning',
    rule: 'x402 and MPP networks: a testnet (Base Sepolia, Tempo Moderato, Solana devnet) moves test money only.',
    fix: 'Offer a mainnet network (for example eip155:8453, Base) to be paid for real.',
  },
  lenient_only: {
    severity: 'warning',
    rule: 'x402 v2 HTTP transport: the challenge is in the PAYMENT-REQUIRED header, canonical base64, x402Version a number; the reference client reads nothing else.',
    fix: 'Send the challenge in the PAYMENT-REQUIRED header, encoded by @x402/core (padded base64, x402Version: 2 as a number).',
  },
};

/**
 * A problem of `code`, found at `where`, said in `message`; the rule and fix come from the code.
 * @example toProblem('x402_amount_not_integer', 'header PAYMENT-REQUIRED, accepts[0].amount', 'The amount "0.01" is not a whole number of atomic units.')
 */
export function toProblem(code: ProblemCode, where: string, message: string): Problem {
  const { severity, rule, fix } = PROBLEM_RULES[code];
  return { code, severity, message, fix, where, rule };
}
