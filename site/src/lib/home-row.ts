import type { Service } from '../../../domain/schemas.ts';
import { FLAG_EXPLANATIONS, FLAGS, type Flag } from '../../../domain/values.ts';
import { toRailLabel } from './directories.ts';
import { formatPercent, formatUsd, toBaseUrl, truncate } from './format.ts';
import { toCheckResult, type CheckResult } from './result.ts';

/**
 * One service as a row of the home page's results. Shared by the server render and the client script
 * (site/src/scripts/search.ts), so a row reads the same whether it came from HTML or from the list API.
 */
export interface HomeRowView {
  id: string;
  href: string;
  name: string;
  /** The description cut to a few lines, or null. */
  description: string | null;
  result: CheckResult;
  /** `$0.01`, or `No price listed`. */
  price: string;
  /** The line under the description, each part on its own: rails, chains, assets, category (`['x402', 'base', 'USDC']`). */
  meta: string[];
  /** The host of the main endpoint (`https://api.example.com`). */
  host: string;
  /** The last 30 days' uptime and median latency, when known: `30 d: 96.7 % up · 143 ms median`, or null. */
  health: string | null;
  /** The small marker of a flagged service: `⚑ 2 flags`, and each flag's explanation for its title; null without flags. */
  flags: { text: string; title: string } | null;
}

const DESCRIPTION_MAX = 220;

/**
 * @example toHomeRow(service).price // '$0.01'
 */
export function toHomeRow(service: Service): HomeRowView {
  const meta = [service.rails.map(toRailLabel).join(' + '), service.chains.join(', '), service.assets.join(', '), service.category ?? '']
    .filter((part) => part.length > 0);
  return {
    id: service.id,
    href: `/services/${encodeURIComponent(service.id)}`,
    name: service.name,
    description: service.description ? truncate(service.description, DESCRIPTION_MAX) : null,
    result: toCheckResult(service.live),
    price: formatUsd(service.price.usd) ?? 'No price listed',
    meta,
    host: toBaseUrl(service.endpoint),
    health: toHealth(service.uptime_30d, service.median_latency_ms_30d),
    flags: toFlagMarker(service.flags),
  };
}

/**
 * @example toFlagMarker(['testnet_only']) // { text: '⚑ 1 flag', title: 'testnet_only: Every network it accepts is a testnet: …' }
 */
function toFlagMarker(flags: readonly string[]): HomeRowView['flags'] {
  const known = FLAGS.filter((flag: Flag) => flags.includes(flag));
  if (known.length === 0) return null;
  return {
    text: `⚑ ${known.length} ${known.length === 1 ? 'flag' : 'flags'}`,
    title: known.map((flag) => `${flag}: ${FLAG_EXPLANATIONS[flag]}`).join('\n'),
  };
}

/**
 * @example toHealth(0.967, 143) // '30 d: 96.7 % up · 143 ms median'
 */
function toHealth(uptime: number | null, latencyMs: number | null): string | null {
  const parts = [
    ...(uptime !== null && Number.isFinite(uptime) ? [`${formatPercent(uptime, 1)} up`] : []),
    ...(latencyMs !== null && Number.isFinite(latencyMs) ? [`${Math.round(latencyMs).toLocaleString('en-US')} ms median`] : []),
  ];
  return parts.length > 0 ? `30 d: ${parts.join(' · ')}` : null;
}
