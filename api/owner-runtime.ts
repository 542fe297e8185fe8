import { createDnsResolver, toLookupFunction, type DnsResolver } from '../net/dns.ts';
import type { checkOwnership, diagnoseAnswer, ProbeAgent, probeEndpoint, readHostDiscovery } from '../crawler/index.ts';
import type { AppDeps } from './app.ts';
import { apiError } from './errors.ts';
import { loadOnce } from './load-once.ts';
import { createRateLimiter, type RateLimiter } from './ratelimit.ts';

/*
 * What the claim and owner routes share within one app: the DNS resolver, the guarded connections they reach owners'
 * hosts with, and their own limits, on top of the API's per-client rate limit. Claims and verifications reach out to
 * other hosts, so each client gets few of them; they are counted per client and service, never per service alone, so
 * whoever exhausts a service's limits locks out only themselves, never its owner.
 */

/**
 * Claims: 5 an hour per client and service, 20 per client. Verifications: 20 an hour per client and service, 60 per
 * client. Owner actions (edit, delist, relist): 10 an hour per service, whoever holds its key.
 */
export const CLAIM_LIMITS = {
  claimsPerClientAndService: { limit: 5, windowSeconds: 3600 },
  claimsPerClient: { limit: 20, windowSeconds: 3600 },
  verificationsPerClientAndService: { limit: 20, windowSeconds: 3600 },
  verificationsPerClient: { limit: 60, windowSeconds: 3600 },
  ownerActionsPerService: { limit: 10, windowSeconds: 3600 },
  /** An owner's recheck probes the main endpoint at most once a minute per service. */
  rechecksPerService: { limit: 1, windowSeconds: 60 },
} as const;

type LimitName = keyof typeof CLAIM_LIMITS;

/** What the owner and check routes use of the crawler (crawler/index.ts), with the pool they reach hosts through. */
export interface CrawlerReach {
  agent: ProbeAgent;
  probeEndpoint: typeof probeEndpoint;
  checkOwnership: typeof checkOwnership;
  diagnoseAnswer: typeof diagnoseAnswer;
  readHostDiscovery: typeof readHostDiscovery;
}

export interface OwnerRuntime {
  dns: DnsResolver;
  /**
   * The crawler's reach (its probe, ownership check and seller's check) and the guarded connections it reaches hosts
   * with, loaded and made on first use: an app that never reaches a host opens no pool, and does not hold the probe's
   * challenge readers.
   */
  crawler(): Promise<CrawlerReach>;
  /** Spends one of `name`'s tokens for `key`, or throws 429 `rate_limited` saying what to wait for. */
  spend(name: LimitName, key: string, what: string): void;
}

const runtimes = new WeakMap<AppDeps, OwnerRuntime>();

/**
 * The owner runtime of an app's dependencies, made once.
 * @example ownerRuntime(deps).spend('claimsPerClient', client, 'claims from this client');
 */
export function ownerRuntime(deps: AppDeps): OwnerRuntime {
  let runtime = runtimes.get(deps);
  if (!runtime) {
    runtime = createOwnerRuntime(deps);
    runtimes.set(deps, runtime);
  }
  return runtime;
}

function createOwnerRuntime(deps: AppDeps): OwnerRuntime {
  const dns = deps.dns ?? createDnsResolver({ servers: deps.config.dnsServers });
  const limiters = Object.fromEntries(Object.entries(CLAIM_LIMITS).map(([name, rate]) => [name, createRateLimiter(rate)])) as Record<LimitName, RateLimiter>;
  return {
    dns,
    crawler: loadOnce(() => import('../crawler/index.ts').then((crawler): CrawlerReach => ({
      // The owner's host is reached through the same resolver as its TXT record: DNS_SERVERS, with a time limit.
      agent: crawler.createProbeAgent({ allow: deps.config.allowPrivateTargets, lookup: toLookupFunction(dns.lookupAll) }),
      probeEndpoint: crawler.probeEndpoint,
      checkOwnership: crawler.checkOwnership,
      diagnoseAnswer: crawler.diagnoseAnswer,
      readHostDiscovery: crawler.readHostDiscovery,
    }))),
    spend(name, key, what) {
      const taken = limiters[name].take(key, deps.now().getTime());
      if (taken.allowed) return;
      const { limit, windowSeconds } = CLAIM_LIMITS[name];
      throw apiError(429, 'rate_limited', `Over ${limit} ${what} per ${windowSeconds >= 3600 ? `${windowSeconds / 3600} h` : `${windowSeconds} s`}. Retry after the Retry-After seconds.`, {
        headers: { 'retry-after': String(taken.retryAfterSeconds) },
      });
    },
  };
}
