import { lookup as systemLookup } from 'node:dns/promises';
import { Resolver } from 'node:dns/promises';

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
