import { encodePaymentResponseHeader, HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import type { H3Event } from 'h3';
import type { AppDeps, Route } from '../app.ts';
import { JsonReply } from '../http.ts';
import { toChallengeReply, toPaymentRequired } from './challenge.ts';
import type { DemoContext, DemoService } from './define.ts';
import { readDemoParams } from './params.ts';
import { acceptPayment } from './payment.ts';
import { createPriceSource } from './price-source.ts';
import { DEMO_SERVICES } from './registry.ts';

/** Unpaid challenges kept per demo service, by URL; past this many, the kept ones are forgotten. */
const UNPAID_CHALLENGES_KEPT = 256;

/** Each facilitator call (verify, settle) gives up after this long, so a paid call never hangs. */
export const FACILITATOR_TIMEOUT_MS = 20_000;

/**
 * One GET route per demo service: parameters validated first (400 naming the parameter), then the x402 v2
 * challenge (402) when unpaid, or verify, answer, settle and 200 with `PAYMENT-RESPONSE` when paid.
 * @example const routes = demoServiceRoutes(deps); // [{ method: 'GET', path: '/api/demo/market', handler }, ...]
 */
export function demoServiceRoutes(deps: AppDeps): Route[] {
  const facilitator = new HTTPFacilitatorClient({ url: deps.config.facilitatorUrl, timeoutMs: FACILITATOR_TIMEOUT_MS });
  const context: DemoContext = { now: deps.now, priceSource: createPriceSource({ url: deps.config.priceSourceUrl, now: deps.now }) };
  return DEMO_SERVICES.map((service) => ({
    method: 'GET' as const,
    path: service.path,
    handler: demoServiceHandler(service, { config: deps.config, facilitator, context }),
  }));
}

interface HandlerDeps extends Pick<AppDeps, 'config'> {
  facilitator: HTTPFacilitatorClient;
  context: DemoContext;
}

function demoServiceHandler(service: DemoService, { config, facilitator, context }: HandlerDeps) {
  let terms: PaymentRequirements | undefined;
  /** A URL's unpaid challenge is the same every time, and most are asked again and again (every probe pass asks). */
  const unpaid = new Map<string, JsonReply>();
  const toUnpaidChallenge = (requirements: PaymentRequirements, url: string) => {
    let reply = unpaid.get(url);
    if (!reply) {
      if (unpaid.size >= UNPAID_CHALLENGES_KEPT) unpaid.clear();
      reply = toChallengeReply(toPaymentRequired(service, requirements, url));
      unpaid.set(url, reply);
    }
    return reply;
  };
  return async (event: H3Event): Promise<JsonReply> => {
    const params = readDemoParams(service, event.url.searchParams);
    // The terms bring viem (addresses), loaded on the first call rather than at start, as the purchase handlers are;
    // made once, since checksumming their two addresses (keccak-256) would cost more than the rest of a challenge.
    const requirements = (terms ??= (await import('./terms.ts')).toPaymentRequirements(service, config));
    const header = event.req.headers.get('payment-signature');
    if (!header) return toUnpaidChallenge(requirements, event.url.href);
    const outcome = await acceptPayment({
      facilitator,
      header,
      requirements,
      produce: async () => service.respond(params, context),
    });
    if (!outcome.paid) return toChallengeReply(toPaymentRequired(service, requirements, event.url.href, outcome.reason), outcome.settlement);
    return new JsonReply(200, { 'payment-response': encodePaymentResponseHeader(outcome.settlement), 'cache-control': 'no-store' }, outcome.body);
  };
}
