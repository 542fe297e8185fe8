import { resolve } from 'node:path';
import type { BuildOptions } from './build.ts';

/** The server settings the site depends on (a subset of api/config.ts's Config). */
export interface SiteSettings {
  host: string;
  port: number;
  baseUrl: string | null;
  stagingUrl: string | null;
  databasePath: string;
}

/**
 * Where the site goes and which origin it names: `DIST_DIR` (default `dist`), the site URL from `BASE_URL`
 * (default the server's own `http://HOST:PORT`), the purchase preview's from `STAGING_URL` (default the site).
 * @example const options = readSiteOptions(process.env, readConfig(process.env));
 */
export function readSiteOptions(env: NodeJS.ProcessEnv, settings: SiteSettings, log?: (line: string) => void): BuildOptions {
  const siteUrl = trimSlash(settings.baseUrl ?? `http://${toUrlHost(settings.host)}:${settings.port}`);
  return {
    distDir: resolve(env.DIST_DIR || 'dist'),
    siteUrl,
    stagingUrl: trimSlash(settings.stagingUrl ?? siteUrl),
    databasePath: settings.databasePath === ':memory:' ? undefined : resolve(settings.databasePath),
    now: () => new Date(),
    log,
  };
}

function toUrlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');
