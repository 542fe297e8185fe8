import type { z } from 'zod';
import type { CheckResult } from '../../domain/check.ts';
import { toServiceId } from '../../domain/service-id.ts';
import { assertPublicUrl, TargetError } from '../../net/guard.ts';
import { noteFacilitators } from '../../data/facilitators.ts';
import { getService } from '../../data/service-read.ts';
import { checkEndpointDeclaration, type CheckRequest } from '../declarations/check.ts';
import { apiError } from '../errors.ts';
import { appLookupGate } from '../lookup-gate.ts';
import { defineOperation, type OperationContext } from '../operation.ts';
import { ownerRuntime } from '../owner-runtime.ts';
import { createRateLimiter, type RateLimiter } from '../ratelimit.ts';

/**
 * A seller's check: any URL probed now, through the SSRF guard and the probe's limits, answered with every challenge,
 * every problem and its fix, what the host publishes for discovery, and whether the index lists it. Each check reaches
 * another host, so a client gets few of them (`CHECK_RATE_LIMIT`) on top of the API's rate limit.
 */

export const checkEndpointOperation = defineOperation(checkEndpointDeclaration, ({ body }, context) => runCheck(body, context));

const limiters = new WeakMap<object, RateLimiter>();

/** Spends one of the client's checks, or throws 429 `rate_limited` with the seconds to wait. */
function spendCheck({ deps, client = 'local' }: OperationContext): void {
  const rate = deps.config.checkRateLimit;
  let limiter = limiters.get(deps);
  if (!limiter) limiters.set(deps, (limiter = createRateLimiter(rate)));
  const taken = limiter.take(client, deps.now().getTime());
  if (taken.allowed) return;
  throw apiError(429, 'rate_limited', `Over ${rate.limit} checks per ${rate.windowSeconds} s from this client. Retry after the Retry-After seconds.`, {
    headers: { 'retry-after': String(taken.retryAfterSeconds) },
  });
}

async function runCheck(body: z.output<typeof CheckRequest>, context: OperationContext): Promise<CheckResult> {
  const { deps, client = 'local' } = context;
  const url = await toPublicUrl(body.url, context, client);
  spendCheck(context);
  const { agent, probeEndpoint, diagnoseAnswer, readHostDiscovery } = await ownerRuntime(deps).crawler();
  const outcome = await probeEndpoint({ url, method: body.method }, { agent, now: deps.now, keepAnswer: true, fallback: body.method === undefined });
  const checkedAt = outcome.probed_at;
  const answer = diagnoseAnswer(outcome.answer!, url, deps.now());
  const liveOffers = answer.challenges.filter((challenge) => challenge.valid).flatMap((challenge) => challenge.offers);
  const discovery = await readHostDiscovery(url, liveOffers, agent.dispatcher);
  const service = getService(deps.db, toServiceId(url));
  // Only a listed host's challenges add to the facilitator directory: anyone can check any URL.
  if (service) noteFacilitators(deps.db, liveOffers.flatMap((offer) => (offer.facilitator ? [{ url: offer.facilitator, seenIn: 'challenge' as const }] : [])), checkedAt);
  return {
    url,
    checked_at: checkedAt,
    status_code: outcome.status_code,
    latency_ms: outcome.status_code === null ? null : outcome.latency_ms,
    live: answer.live,
    challenges: answer.challenges,
    problems: [...answer.problems, ...discovery.problems],
    discovery: discovery.documents,
    listed: service ? { service_id: service.id, flags: service.flags, page: `${context.origin}/services/${service.id}` } : null,
    submit: service ? null : { method: 'POST', url: `${context.origin}/api/v1/submit`, body: { endpoint: url } },
  };
}

/** The URL once the SSRF guard lets the index reach it (names are checked again at connect time), else 400. */
async function toPublicUrl(given: string, { deps }: OperationContext, client: string): Promise<string> {
  const gate = appLookupGate(deps);
  try {
    const url = await assertPublicUrl(given, {
      allow: deps.config.allowPrivateTargets, lookup: (host) => gate.lookup(client, host), onUnresolvable: 'accept',
    });
    return url.href;
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    throw apiError(400, 'invalid_endpoint', `"url" ${error.message}: check a public absolute http(s) URL.`);
  }
}
