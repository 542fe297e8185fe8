import { encodePaymentResponseHeader, HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import type { AppDeps } from '../app.ts';
import { JsonReply } from '../http.ts';
import { toChallengeReply, toPaymentRequired } from './challenge.ts';
import { acceptPayment } from './payment.ts';
import { createPriceSource } from './price-source.ts';
import type { DemoContext, DemoService } from './service.ts';

/** Unpaid challenges kept per demo service, by URL; past this many, the kept ones are forgotten. */
const UNPAID_CHALLENGES_KEPT = 256;

/** Each facilitator call (verify, settle) gives up after this long, so a paid call never hangs. */
const FACILITATOR_TIMEOUT_MS = 20_000;

/** A demo call as its operation read it: the validated parameters, the payment header if any, the URL asked for. */
export interface DemoCall {
  params: Record<string, unknown>;
  payment: string | undefined;
  url: URL;
}

/** What the demo services of one app share: the facilitator, the price source, and each service's terms and challenges. */
interface DemoRuntime {
  facilitator: HTTPFacilitatorClient;
  context: DemoContext;
  terms: Map<DemoService, PaymentRequirements>;
  unpaid: Map<DemoService, Map<string, JsonReply>>;
}

const runtimes = new WeakMap<AppDeps, DemoRuntime>();

/**
 * A demo service's answer to a call whose parameters are valid: the x402 v2 challenge (402) when unpaid, or verify,
 * answer, settle and 200 with `PAYMENT-RESPONSE` when paid.
 * @example return answerDemoCall(webSearch, { params, payment: headers['payment-signature'], url }, deps);
 */
export async function answerDemoCall(service: DemoService, call: DemoCall, deps: AppDeps): Promise<JsonReply> {
  const runtime = toRuntime(deps);
  const requirements = await toTerms(service, runtime, deps);
  if (!call.payment) return toUnpaidChallenge(service, requirements, call.url.href, runtime);
  const outcome = await acceptPayment({
    facilitator: runtime.facilitator,
    header: call.payment,
    requirements,
    produce: async () => service.respond(call.params, runtime.context),
  });
  if (!outcome.paid) return toChallengeReply(toPaymentRequired(service, requirements, call.url.href, outcome.reason), outcome.settlement);
  return new JsonReply(200, { 'payment-response': encodePaymentResponseHeader(outcome.settlement), 'cache-control': 'no-store' }, outcome.body);
}

function toRuntime(deps: AppDeps): DemoRuntime {
  let runtime = runtimes.get(deps);
  if (!runtime) {
    runtime = {
      facilitator: new HTTPFacilitatorClient({ url: deps.config.facilitatorUrl, timeoutMs: FACILITATOR_TIMEOUT_MS }),
      context: { now: deps.now, priceSource: createPriceSource({ url: deps.config.priceSourceUrl, now: deps.now }) },
      terms: new Map(),
      unpaid: new Map(),
    };
    runtimes.set(deps, runtime);
  }
  return runtime;
}

/**
 * The terms bring viem (addresses), loaded on the first call rather than at start, as the purchase handlers are;
 * made once per service, since checksumming their two addresses (keccak-256) would cost more than the rest of a challenge.
 */
async function toTerms(service: DemoService, runtime: DemoRuntime, deps: AppDeps): Promise<PaymentRequirements> {
  let terms = runtime.terms.get(service);
  if (!terms) {
    terms = (await import('./terms.ts')).toPaymentRequirements(service, deps.config);
    runtime.terms.set(service, terms);
  }
  return terms;
}

/** A URL's unpaid challenge is the same every time, and most are asked again and again (every probe pass asks). */
function toUnpaidChallenge(service: DemoService, requirements: PaymentRequirements, url: string, runtime: DemoRuntime): JsonReply {
  let kept = runtime.unpaid.get(service);
  if (!kept) runtime.unpaid.set(service, (kept = new Map()));
  let reply = kept.get(url);
  if (!reply) {
    if (kept.size >= UNPAID_CHALLENGES_KEPT) kept.clear();
    reply = toChallengeReply(toPaymentRequired(service, requirements, url));
    kept.set(url, reply);
  }
  return reply;
}
