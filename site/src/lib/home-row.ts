import type { Service } from '../../../domain/schemas.ts';
import { FLAG_EXPLANATIONS, FLAGS, type Flag } from '../../../domain/values.ts';
import { toRailLabel } from './directories.ts';
import { formatPercent, formatUsd, shortenMiddle, toBaseUrl, toDisplayName, truncate } from './format.ts';
import { toCheckResult, type CheckResult } from './result.ts';

/**
 * One service as a compact row of the home page's results. Shared by the server render and the client script
 * (site/src/scripts/search.ts), so a row reads the same whether it came from HTML or from the list API. Long values
 * are shortened for the row; the whole value is in `title` (and on the listing page).
 */
export interface HomeRowView {
  id: string;
  href: string;
  /** The name shown: the directory's, or the host when that name is only a slug of it; shortened when long. */
  name: string;
  /** The whole name when `name` is shortened, else null. */
  nameTitle: string | null;
  /** The description cut to one line, or null; `descriptionTitle` holds it whole. */
  description: string | null;
  descriptionTitle: string | null;
  result: CheckResult;
  /** `$0.01`, `from $0.001` (its endpoints' prices differ: the cheapest), or `No price listed` (toRowPrice). */
  price: string;
  /** `$0.001 to $0.05 across its endpoints` when they differ, else null. */
  priceTitle: string | null;
  /** The last 30 days' share of checks that detected a challenge, when any check ran. */
  uptime: { text: string; ratio: number; low: boolean } | null;
  /** `143 ms`: the median response time of the last 30 days' answered checks, or null. */
  latency: string | null;
  /** Rails, chains and assets as chips, then the category; `title` holds a shortened value whole. */
  chips: Array<{ kind: 'rail' | 'chain' | 'asset' | 'category'; text: string; title: string | null }>;
  /** The main endpoint's origin (`https://api.example.com`), shortened; `hostTitle` holds it whole when shortened. */
  host: string;
  hostTitle: string | null;
  /** The small marker of a flagged service: `⚑ 2 flags`, and each flag's explanation for its title; null without flags. */
  flags: { text: string; title: string } | null;
}

const NAME_MAX = 48;
const DESCRIPTION_MAX = 160;
const HOST_MAX = 40;
const CHIP_MAX = 14;
/** Under this share of checks with a challenge, the uptime bar is drawn in the warning colour. */
const LOW_UPTIME = 0.9;

/**
 * @example toHomeRow(service).price // '$0.01'
 */
export function toHomeRow(service: Service): HomeRowView {
  const name = toDisplayName(service.name, service.endpoint);
  const host = toBaseUrl(service.endpoint);
  const description = service.description ? truncate(service.description, DESCRIPTION_MAX) : null;
  return {
    id: service.id,
    href: `/services/${encodeURIComponent(service.id)}`,
    name: shortenMiddle(name, NAME_MAX),
    nameTitle: name.length > NAME_MAX ? name : null,
    description,
    descriptionTitle: description && description !== service.description ? service.description : null,
    result: toCheckResult(service.live),
    ...toRowPrice(service),
    uptime: toUptime(service.uptime_30d),
    latency: service.median_latency_ms_30d !== null && Number.isFinite(service.median_latency_ms_30d)
      ? `${Math.round(service.median_latency_ms_30d).toLocaleString('en-US')} ms`
      : null,
    chips: [
      ...service.rails.map((rail) => toChip('rail', toRailLabel(rail))),
      ...service.chains.map((chain) => toChip('chain', chain)),
      ...service.assets.map((asset) => toChip('asset', asset)),
      ...(service.category ? [toChip('category', service.category)] : []),
    ],
    host: shortenMiddle(host, HOST_MAX),
    hostTitle: host.length > HOST_MAX ? host : null,
    flags: toFlagMarker(service.flags),
  };
}

/**
 * The row's price: the cheapest of its endpoints' prices (`price_range`), which `sort=price` orders by and
 * `max_price_usd` keeps, marked `from` when they differ; the main endpoint's when no endpoint's price is known.
 * @example toRowPrice({ price: { usd: 0.05, display: '$0.05' }, price_range: { min_usd: 0.001, max_usd: 0.05 } }).price // 'from $0.001'
 */
export function toRowPrice(service: Pick<Service, 'price' | 'price_range'>): Pick<HomeRowView, 'price' | 'priceTitle'> {
  const { min_usd: min, max_usd: max } = service.price_range;
  const cheapest = formatUsd(min);
  if (cheapest === null) return { price: formatUsd(service.price.usd) ?? 'No price listed', priceTitle: null };
  const dearest = formatUsd(max);
  if (dearest === null || dearest === cheapest) return { price: cheapest, priceTitle: null };
  return { price: `from ${cheapest}`, priceTitle: `${cheapest} to ${dearest} across its endpoints` };
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

function toChip(kind: HomeRowView['chips'][number]['kind'], value: string) {
  const text = shortenMiddle(value, CHIP_MAX);
  return { kind, text, title: text === value ? null : value };
}

function toUptime(ratio: number | null): HomeRowView['uptime'] {
  if (ratio === null || !Number.isFinite(ratio)) return null;
  return { text: formatPercent(ratio, 1) ?? '0 %', ratio: Math.min(1, Math.max(0, ratio)), low: ratio < LOW_UPTIME };
}
