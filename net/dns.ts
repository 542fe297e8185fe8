import { lookup as systemLookup } from 'node:dns/promises';
import { Resolver } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';

/** Every DNS question the index asks gives up after this long. */
export const DNS_TIMEOUT_MS = 3_000;

/** Name resolution the index uses for owners' TXT records and submitted hosts, each answer within a time limit. */
export interface DnsResolver {
  /** The TXT records of a name, each joined from its strings; rejects when there are none or on time. */
  resolveTxt(name: string): Promise<string[]>;
  /** Every address of a host name (A and AAAA); rejects when it has none or on time. */
  lookupAll(host: string): Promise<string[]>;
}

export interface DnsResolverOptions {
  /** `DNS_SERVERS`: addresses (`127.0.0.1:5353`) to ask instead of the system's; empty: the system's. */
  servers?: readonly string[];
  timeoutMs?: number;
}

/**
 * A resolver over the given servers (the system's by default), every question with a time limit: c-ares with one
 * try of `timeoutMs`, and a timer besides, since a system lookup (getaddrinfo) has no time limit of its own.
 * @example const dns = createDnsResolver({ servers: ['127.0.0.1:5353'] }); await dns.resolveTxt('_payable-service-index.example.com');
 */
export function createDnsResolver(options: DnsResolverOptions = {}): DnsResolver {
  const timeoutMs = options.timeoutMs ?? DNS_TIMEOUT_MS;
  const servers = options.servers ?? [];
  const resolver = () => {
    const made = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers.length > 0) made.setServers([...servers]);
    return made;
  };
  return {
    resolveTxt: (name) => {
      const asked = resolver();
      return withTimeLimit(asked.resolveTxt(name).then((records) => records.map((parts) => parts.join(''))), timeoutMs, () => asked.cancel());
    },
    lookupAll: (host) => {
      if (servers.length === 0) {
        return withTimeLimit(systemLookup(host, { all: true, verbatim: true }).then((entries) => entries.map((e) => e.address)), timeoutMs);
      }
      const asked = resolver();
      const both = Promise.allSettled([asked.resolve4(host), asked.resolve6(host)]).then((results) => {
        const addresses = results.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
        if (addresses.length === 0) throw new Error(`${host} has no address`);
        return addresses;
      });
      return withTimeLimit(both, timeoutMs, () => asked.cancel());
    },
  };
}

/**
 * A resolver's `lookupAll` as the `lookup` a socket connects with (net.connect, undici's connector), so connections
 * ask DNS_SERVERS within the resolver's time limit rather than the system's getaddrinfo, which has none and holds
 * one of libuv's few threads while it waits. A host without an address in time fails as ENOTFOUND.
 * @example createProbeAgent({ allow, lookup: toLookupFunction(createDnsResolver({ servers }).lookupAll) })
 */
export function toLookupFunction(lookupAll: DnsResolver['lookupAll']): LookupFunction {
  return (hostname, options, callback) => {
    const fail = (error: Error) => callback(Object.assign(new Error(`${hostname}: ${error.message}`), { code: 'ENOTFOUND', hostname }), '', 0);
    lookupAll(hostname).then((found) => {
      const entries = found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
        .filter((entry) => !options.family || entry.family === options.family);
      if (entries.length === 0) fail(new Error(`no IPv${options.family} address`));
      else if (options.all) callback(null, entries);
      else callback(null, entries[0]!.address, entries[0]!.family);
    }, fail);
  };
}

/**
 * `DNS_SERVERS` as a list: comma-separated addresses, each optionally with a port.
 * @example parseDnsServers('127.0.0.1:5353, 9.9.9.9') // ['127.0.0.1:5353', '9.9.9.9']
 */
export function parseDnsServers(value: string | undefined): string[] {
  return (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
}

function withTimeLimit<T>(promise: Promise<T>, timeoutMs: number, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(`no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
