/**
 * The SSRF guard shared by the submit route (refuse a submitted URL) and the prober (refuse to
 * connect): which URLs, host names and addresses the index may reach.
 */
import { lookup as dnsLookup } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Addresses that may be reached although private: the parsed `ALLOW_PRIVATE_TARGETS`. */
export type AllowList = BlockList;

export type TargetErrorReason =
  | 'invalid_url'
  | 'not_http'
  | 'credentials'
  | 'private_host'
  | 'private_address'
  | 'dns_failed';

const MESSAGES: Record<TargetErrorReason, string> = {
  invalid_url: 'refused: not an absolute URL',
  not_http: 'refused: not http(s)',
  credentials: 'refused: credentials in URL',
  private_host: 'refused: private host name',
  private_address: 'refused: private address',
  dns_failed: 'refused: host did not resolve',
};

/**
 * A target the index must not reach. Permanent: never retried.
 * @example throw new TargetError({ reason: 'private_address', host: 'a.test', address: '10.0.0.1' })
 */
export class TargetError extends Error {
  override readonly name = 'TargetError';
  readonly reason: TargetErrorReason;
  readonly host: string | undefined;
  readonly address: string | undefined;

  constructor(facts: { reason: TargetErrorReason; host?: string; address?: string; cause?: unknown }) {
    super(MESSAGES[facts.reason], { cause: facts.cause });
    this.reason = facts.reason;
    this.host = facts.host;
    this.address = facts.address;
  }
}

/**
 * Ranges that are not globally reachable (IANA special-purpose registries). Two lists, because a
 * BlockList also applies IPv6 rules to IPv4 addresses as if mapped (::/3 would cover all of IPv4).
 */
const FORBIDDEN_IPV4 = new BlockList();
const FORBIDDEN_IPV6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", includes the unspecified 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT, includes the Alibaba metadata 100.100.100.200
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, includes the metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes the broadcast 255.255.255.255
] as const) {
  FORBIDDEN_IPV4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // Everything outside global unicast 2000::/3: unspecified, loopback, discard, ULA fc00::/7
  // (includes the metadata fd00:ec2::254), link-local fe80::/10, multicast ff00::/8, ...
  ['::', 3],
  ['4000::', 2],
  ['8000::', 1],
  ['2001::', 23], // IETF protocol assignments, includes Teredo
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
] as const) {
  FORBIDDEN_IPV6.addSubnet(network, prefix, 'ipv6');
}

/** IPv6 ranges that carry an IPv4 address in their last 32 bits: compatible, mapped, NAT64. */
const EMBEDS_IPV4_LOW = new BlockList();
EMBEDS_IPV4_LOW.addSubnet('::', 96, 'ipv6');
EMBEDS_IPV4_LOW.addSubnet('::ffff:0:0', 96, 'ipv6');
EMBEDS_IPV4_LOW.addSubnet('64:ff9b::', 96, 'ipv6');
/** 6to4 carries an IPv4 address in bits 16 to 47. */
const SIX_TO_FOUR = new BlockList();
SIX_TO_FOUR.addSubnet('2002::', 16, 'ipv6');

/** Host names that only ever mean this machine or a private network. */
const PRIVATE_HOSTNAME = /(^|\.)(localhost|internal|local|home\.arpa)\.?$/i;

/**
 * Parses `ALLOW_PRIVATE_TARGETS`: a comma list of IPv4/IPv6 addresses or CIDRs, empty by default.
 * Throws on a malformed entry.
 * @example parseAllowList('127.0.0.1, 10.0.0.0/8, ::1')
 */
export function parseAllowList(value: string | undefined): AllowList {
  const allow = new BlockList();
  const entries = (value ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const isValidPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !isValidPrefix || rest.length > 0) {
      throw new Error(`ALLOW_PRIVATE_TARGETS: "${entry}" is not an IP address or CIDR`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) allow.addAddress(address, type);
    else allow.addSubnet(address, Number(prefix), type);
  }
  return allow;
}

/**
 * The IP address a host name denotes literally, or undefined for a name to resolve. Accepts
 * bracketed IPv6, drops an IPv6 zone id, and canonicalises the legacy IPv4 forms a URL parser or
 * resolver accepts (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`) to a dotted quad.
 * @example toHostAddress('[::1]') // '::1'
 */
export function toHostAddress(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  const unzoned = bare.includes(':') ? bare.replace(/%.*$/, '') : bare;
  if (isIP(unzoned) !== 0) return unzoned.toLowerCase();
  if (!/^[\da-fx.]+$/i.test(bare)) return undefined;
  try {
    const canonical = new URL(`http://${bare}/`).hostname;
    return isIP(canonical) === 4 ? canonical : undefined;
  } catch {
    return undefined; // not an IPv4 number either, e.g. 1.2.3.4.5
  }
}

/**
 * The eight 16-bit groups of an IPv6 address.
 * @example toIPv6Groups('2001:db8::1') // [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]
 */
export function toIPv6Groups(ipv6: string): number[] {
  const compressed = new URL(`http://[${ipv6}]/`).hostname.slice(1, -1); // dotted tail -> hex
  const [head = '', tail] = compressed.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16));
}

/** The IPv4 address inside a compatible, mapped, NAT64 or 6to4 IPv6 address, if any. */
function toEmbeddedIPv4(ipv6: string): string | undefined {
  const at = EMBEDS_IPV4_LOW.check(ipv6, 'ipv6') ? 6 : SIX_TO_FOUR.check(ipv6, 'ipv6') ? 1 : undefined;
  if (at === undefined) return undefined;
  const [high = 0, low = 0] = toIPv6Groups(ipv6).slice(at, at + 2);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * Whether the index must not connect to this address: any range that is not globally reachable
 * (private, loopback, link-local, CGNAT, metadata, multicast, reserved, ...), also when embedded
 * in an IPv6 address, unless `allow` covers it. Input that is not an IP address counts as forbidden.
 * @example isForbiddenAddress('::ffff:127.0.0.1', parseAllowList(undefined)) // true
 */
export function isForbiddenAddress(ip: string, allow: AllowList): boolean {
  const address = toHostAddress(ip);
  if (address === undefined) return true;
  const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  if (allow.check(address, type)) return false;
  if (type === 'ipv4') return FORBIDDEN_IPV4.check(address, 'ipv4');
  const embedded = toEmbeddedIPv4(address);
  return embedded === undefined ? FORBIDDEN_IPV6.check(address, 'ipv6') : isForbiddenAddress(embedded, allow);
}

export interface AssertPublicUrlOptions {
  allow: AllowList;
  /** Resolves a host name to all its addresses; default `dns/promises` lookup, all, verbatim. */
  lookup?: (host: string) => Promise<string[]>;
  /** Resolve host names and check every address; default true. Literal hosts are always checked. */
  resolve?: boolean;
  /**
   * What a host name that does not resolve gets: `'reject'` (default) throws `dns_failed`;
   * `'accept'` returns the URL, for the submit route, which queues it for the prober to check.
   */
  onUnresolvable?: 'accept' | 'reject';
}

async function lookupAllAddresses(host: string): Promise<string[]> {
  const entries = await dnsLookupAll(host, { all: true, verbatim: true });
  return entries.map((entry) => entry.address);
}

/**
 * Parses `input` and throws a `TargetError` unless it is an absolute http(s) URL, without
 * credentials, whose host is public: not a forbidden literal address, not a private name
 * (`localhost`, `*.localhost`, `*.internal`, `*.local`, `*.home.arpa`, always refused, whatever
 * `allow` says), and, when resolving, resolving only to public addresses.
 * @example const url = await assertPublicUrl(body.endpoint, { allow, onUnresolvable: 'accept' })
 */
export async function assertPublicUrl(input: string, options: AssertPublicUrlOptions): Promise<URL> {
  let url: URL;
  try {
    url = new URL(input);
  } catch (cause) {
    throw new TargetError({ reason: 'invalid_url', cause });
  }
  const host = url.hostname;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetError({ reason: 'not_http', host });
  if (url.username !== '' || url.password !== '') throw new TargetError({ reason: 'credentials', host });

  const literal = toHostAddress(host);
  if (literal !== undefined) {
    if (isForbiddenAddress(literal, options.allow)) {
      throw new TargetError({ reason: 'private_address', host, address: literal });
    }
    return url;
  }
  if (PRIVATE_HOSTNAME.test(host)) throw new TargetError({ reason: 'private_host', host });
  if (options.resolve === false) return url;

  let addresses: string[] = [];
  let cause: unknown;
  try {
    addresses = await (options.lookup ?? lookupAllAddresses)(host);
  } catch (error) {
    cause = error;
  }
  if (addresses.length === 0) {
    if (options.onUnresolvable === 'accept') return url;
    throw new TargetError({ reason: 'dns_failed', host, cause });
  }
  const forbidden = addresses.find((address) => isForbiddenAddress(address, options.allow));
  if (forbidden !== undefined) throw new TargetError({ reason: 'private_address', host, address: forbidden });
  return url;
}

/**
 * A `dns.lookup`-compatible function that fails the connection with a `TargetError` when any
 * resolved address is forbidden, so the prober checks the addresses it actually connects to
 * (defeats DNS rebinding). Node skips `lookup` for IP-literal hosts: check those (and every
 * redirect) with `assertPublicUrl` too.
 * @example new Agent({ connect: { lookup: createGuardedLookup(allow) } })
 */
export function createGuardedLookup(allow: AllowList, lookup: LookupFunction = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error !== null) return callback(error, address, family);
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      const forbidden = addresses.find((candidate) => isForbiddenAddress(candidate, allow));
      if (forbidden !== undefined) {
        const error = new TargetError({ reason: 'private_address', host: hostname, address: forbidden });
        return callback(error, address, family);
      }
      callback(null, address, family);
    });
  };
}
