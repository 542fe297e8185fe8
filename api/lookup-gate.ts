import { createDnsResolver } from '../net/dns.ts';
import type { AppDeps } from './app.ts';
import { SUBMIT_LOOKUP_TIMEOUT_MS, SUBMIT_LOOKUPS_IN_ALL, SUBMIT_LOOKUPS_PER_CLIENT } from './lookup-limits.ts';

/*
 * Host name lookups for submitted endpoints and webhook receivers, bounded: each answers within a time limit, and at most a few run at once
 * per client and in all. A system lookup (getaddrinfo) holds one of libuv's four threads until the resolver gives up,
 * whatever time limit its caller keeps, so a slot is held until the lookup itself ends, not until its answer stops
 * being awaited: 250 names that never resolve then hold a few slots, not every thread other submissions need.
 */

export type Lookup = (host: string) => Promise<string[]>;

export interface LookupGate {
  /** The host's addresses; none (the submission is queued, and the crawler checks it) when over a cap or late. */
  lookup(client: string, host: string): Promise<string[]>;
}

/**
 * @example const gate = createLookupGate(dns.lookupAll); await assertPublicUrl(url, { allow, lookup: (host) => gate.lookup(client, host), onUnresolvable: 'accept' });
 */
export function createLookupGate(lookup: Lookup, options = { timeoutMs: SUBMIT_LOOKUP_TIMEOUT_MS, perClient: SUBMIT_LOOKUPS_PER_CLIENT, inAll: SUBMIT_LOOKUPS_IN_ALL }): LookupGate {
  const running = new Map<string, number>();
  let total = 0;
  const release = (client: string) => {
    total -= 1;
    const left = (running.get(client) ?? 1) - 1;
    if (left === 0) running.delete(client);
    else running.set(client, left);
  };
  return {
    lookup(client, host) {
      if (total >= options.inAll || (running.get(client) ?? 0) >= options.perClient) return Promise.resolve([]);
      total += 1;
      running.set(client, (running.get(client) ?? 0) + 1);
      const answer = lookup(host).catch(() => [] as string[]);
      void answer.finally(() => release(client));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string[]>((resolve) => {
        timer = setTimeout(() => resolve([]), options.timeoutMs);
      });
      return Promise.race([answer, late]).finally(() => clearTimeout(timer));
    },
  };
}

const gates = new WeakMap<AppDeps, LookupGate>();

/**
 * The app's one gate for the hosts it is given (submissions, webhook receivers): the DNS_SERVERS (else the system's)
 * resolver, with a time limit and caps shared by both routes.
 */
export function appLookupGate(deps: AppDeps): LookupGate {
  let gate = gates.get(deps);
  if (!gate) {
    gate = createLookupGate(deps.lookup ?? createDnsResolver({ servers: deps.config.dnsServers }).lookupAll);
    gates.set(deps, gate);
  }
  return gate;
}
