import { parseDnsServers } from '../net/dns.ts';
import { parseAllowList, type AllowList } from '../net/guard.ts';

/** Every setting of the server, each with a working default. */
export interface Config {
  host: string;
  port: number;
  databasePath: string;
  baseUrl: string | null;
  stagingUrl: string | null;
  trustProxy: boolean;
  allowPrivateTargets: AllowList;
  /** `DNS_SERVERS`: the DNS servers asked for owners' TXT records and submitted hosts; empty: the system's. */
  dnsServers: string[];
  rateLimit: { limit: number; windowSeconds: number };
  /** Sellers' checks (`POST /api/v1/check`) a client may run: each reaches another host now. */
  checkRateLimit: { limit: number; windowSeconds: number };
  probeIntervalMs: number;
  discoveryIntervalMs: number;
  /** x402 facilitator that verifies and settles demo-service payments. */
  facilitatorUrl: string;
  /** Receives demo-service payments (default: the conventional burn address, so test USDC paid is gone). */
  payToAddress: string;
  /** The USDC contract the demo services are paid in (default: Base Sepolia USDC). */
  usdcAddress: string;
  /** CoinGecko-style `simple/price` URL the market-data demo service quotes from. */
  priceSourceUrl: string;
}

export const DEFAULT_RATE_LIMIT = { limit: 300, windowSeconds: 60 };
export const CHECK_RATE_LIMIT = { limit: 6, windowSeconds: 60 };

/**
 * Reads the configuration from the environment.
 * @example const config = readConfig(process.env);
 */
export function readConfig(env: NodeJS.ProcessEnv): Config {
  return {
    host: env.HOST || '127.0.0.1',
    port: toPort(env.PORT),
    databasePath: env.DATABASE_PATH || 'data/index.db',
    baseUrl: toOrigin('BASE_URL', env.BASE_URL),
    stagingUrl: toOrigin('STAGING_URL', env.STAGING_URL),
    trustProxy: ['1', 'true', 'yes'].includes((env.TRUST_PROXY ?? '').toLowerCase()),
    allowPrivateTargets: parseAllowList(env.ALLOW_PRIVATE_TARGETS),
    dnsServers: parseDnsServers(env.DNS_SERVERS),
    rateLimit: DEFAULT_RATE_LIMIT,
    checkRateLimit: CHECK_RATE_LIMIT,
    probeIntervalMs: toDurationMs('PROBE_INTERVAL', env.PROBE_INTERVAL, 5 * 60_000),
    discoveryIntervalMs: toDurationMs('DISCOVERY_INTERVAL', env.DISCOVERY_INTERVAL, 60 * 60_000),
    facilitatorUrl: env.FACILITATOR_URL || 'https://www.x402.org/facilitator',
    payToAddress: toAddress('PAY_TO_ADDRESS', env.PAY_TO_ADDRESS, '0x000000000000000000000000000000000000dEaD'),
    usdcAddress: toAddress('USDC_ADDRESS', env.USDC_ADDRESS, '0x036CbD53842c5426634e7929541eC2318f3dCF7e'),
    priceSourceUrl: env.PRICE_SOURCE_URL || 'https://api.coingecko.com/api/v3/simple/price',
  };
}

/**
 * An absolute http(s) URL the index names itself by (pages, feeds, links in answers), or null when unset; anything
 * else stops the start with the setting's name, since a relative one would write broken links into every page.
 * @example toOrigin('BASE_URL', 'https://index.example') // 'https://index.example'
 */
export function toOrigin(name: string, value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new Error(`${name} must be an absolute http(s) URL such as https://index.example, not ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * A duration given as seconds (`300`) or with a unit (`500ms`, `30s`, `5m`, `1h`).
 * @example toDurationMs('PROBE_INTERVAL', '5m', 0) // 300000
 */
export function toDurationMs(name: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined || value.trim() === '') return fallbackMs;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(value.trim());
  if (!match) throw new Error(`${name} must be a duration like 300, 30s, 5m or 1h; got "${value}"`);
  const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(match[1]) * unitMs);
}

function toAddress(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined || value.trim() === '') return fallback;
  if (!/^0x[0-9a-fA-F]{40}$/.test(value.trim())) throw new Error(`${name} must be a 0x-prefixed 20-byte hex address; got "${value}"`);
  return value.trim();
}

function toPort(value: string | undefined): number {
  if (value === undefined || value === '') return 4321;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be 0-65535, got "${value}"`);
  return port;
}
