import { parseAllowList, type AllowList } from '../crawler/targets.ts';

/** Every setting of the server, each with a working default. */
export interface Config {
  host: string;
  port: number;
  databasePath: string;
  baseUrl: string | null;
  stagingUrl: string | null;
  trustProxy: boolean;
  allowPrivateTargets: AllowList;
  rateLimit: { limit: number; windowSeconds: number };
}

export const DEFAULT_RATE_LIMIT = { limit: 300, windowSeconds: 60 };

/**
 * Reads the configuration from the environment.
 * @example const config = readConfig(process.env);
 */
export function readConfig(env: NodeJS.ProcessEnv): Config {
  return {
    host: env.HOST || '127.0.0.1',
    port: toPort(env.PORT),
    databasePath: env.DATABASE_PATH || 'data/index.db',
    baseUrl: env.BASE_URL || null,
    stagingUrl: env.STAGING_URL || null,
    trustProxy: ['1', 'true', 'yes'].includes((env.TRUST_PROXY ?? '').toLowerCase()),
    allowPrivateTargets: parseAllowList(env.ALLOW_PRIVATE_TARGETS),
    rateLimit: DEFAULT_RATE_LIMIT,
  };
}

function toPort(value: string | undefined): number {
  if (value === undefined || value === '') return 4321;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be 0-65535, got "${value}"`);
  return port;
}
