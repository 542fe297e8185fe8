import { getRouterParam, type H3Event } from 'h3';
import { getService } from '../data/service-read.ts';
import type { Service } from '../domain/schemas.ts';
import type { AppDeps, Route } from './app.ts';
import { loadOnce } from './load-once.ts';

/** Badge colours (badge-maker's names): live green, not live red, unchecked and unknown grey. */
export const BADGE_COLORS = { live: 'brightgreen', dark: 'red', unchecked: 'lightgrey', unknown: 'lightgrey' } as const;

/**
 * badge-maker, loaded on the first badge asked for, as the MCP SDK is: its font-width tables are memory that a
 * server which draws no badge should not hold.
 */
const loadBadgeMaker = loadOnce(() => import('badge-maker'));

/** A badge may be a few minutes old: it follows the probe pass, every five minutes by default. */
const BADGE_HEADERS = { 'content-type': 'image/svg+xml; charset=utf-8', 'cache-control': 'public, max-age=300' };

/**
 * The live badge of a service as badge-maker draws it: the label its rails, the message `live · 99.5% 30d`,
 * `not live` or `not checked`, coloured to match.
 * @example toBadge(service) // { label: 'x402', message: 'live · 99.5% 30d', color: 'brightgreen' }
 */
export function toBadge(service: Pick<Service, 'rails' | 'live' | 'uptime_30d'>): { label: string; message: string; color: string } {
  const label = service.rails.length > 0 ? service.rails.join(' + ') : 'payable';
  if (service.live === true) {
    const uptime = service.uptime_30d === null ? '' : ` · ${formatPercent(service.uptime_30d)} 30d`;
    return { label, message: `live${uptime}`, color: BADGE_COLORS.live };
  }
  if (service.live === false) return { label, message: 'not live', color: BADGE_COLORS.dark };
  return { label, message: 'not checked', color: BADGE_COLORS.unchecked };
}

/** 0.995 -> `99.5%`, 1 -> `100%`: one decimal at most. */
const formatPercent = (ratio: number) => `${Math.round(ratio * 1000) / 10}%`;

/** `GET /badge/{id}.svg`: the badge, or 404 with a grey `not indexed` badge (an image still, for the page embedding it). */
export function badgeRoute(deps: AppDeps): Route {
  return {
    method: 'GET',
    path: '/badge/:file',
    handler: async (event: H3Event) => {
      const { makeBadge } = await loadBadgeMaker();
      const file = getRouterParam(event, 'file', { decode: true }) ?? '';
      const id = file.endsWith('.svg') ? file.slice(0, -4).toLowerCase() : null;
      const service = id ? getService(deps.db, id) : null;
      if (!service) {
        const svg = makeBadge({ label: 'payable-service-index', message: 'not indexed', color: BADGE_COLORS.unknown });
        return new Response(svg, { status: 404, headers: BADGE_HEADERS });
      }
      return new Response(makeBadge(toBadge(service)), { status: 200, headers: BADGE_HEADERS });
    },
  };
}
