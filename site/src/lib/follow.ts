import { listChanges, recentChanges } from '../../../data/changes.ts';
import type { DB } from '../../../data/db.ts';
import type { Change } from '../../../domain/schemas.ts';
import { formatUtc } from './format.ts';

/**
 * What a person follows of the index: the recent changes page, and on a listing page the service's recent changes,
 * its price history, its feeds and its badge to embed. Shaped here for the components that render them
 * (ChangeTable.astro, FollowService.astro).
 */

/** Changes on the recent changes page, and on a listing page. */
export const RECENT_CHANGES = 100;
export const LISTING_CHANGES = 10;

export interface ChangeRowView {
  id: string;
  iso: string;
  time: string;
  type: Change['type'];
  serviceId: string;
  serviceHref: string;
  summary: string;
}

export interface PriceRowView {
  iso: string;
  time: string;
  from: string;
  to: string;
}

export interface FollowView {
  changes: ChangeRowView[];
  prices: PriceRowView[];
  feeds: { atom: string; json: string };
  /** `src` is the page's own (same origin, as the content policy wants); the snippets name the site's URL. */
  badge: { src: string; markdown: string; html: string };
}

export const toChangeRow = (change: Change): ChangeRowView => ({
  id: change.id,
  iso: change.at,
  time: formatUtc(change.at) ?? change.at,
  type: change.type,
  serviceId: change.service_id,
  serviceHref: `/services/${change.service_id}`,
  summary: change.summary,
});

/** The recent changes page: the newest changes of the whole index, newest first. */
export function getRecentChangeRows(db: DB): ChangeRowView[] {
  return recentChanges(db, RECENT_CHANGES).map(toChangeRow);
}

/** A listing page's follow section for service `id`. */
export function getFollowView(db: DB, id: string, siteUrl: string): FollowView {
  const prices = listChanges(db, { service: id, types: ['price_changed'], limit: 500 }).changes.reverse();
  const url = `${siteUrl}/badge/${id}.svg`;
  const page = `${siteUrl}/services/${id}`;
  return {
    changes: recentChanges(db, LISTING_CHANGES, id).map(toChangeRow),
    prices: prices.map((change) => ({
      iso: change.at,
      time: formatUtc(change.at) ?? change.at,
      from: describePrice(change.before?.price),
      to: describePrice(change.after?.price),
    })),
    feeds: { atom: `/services/${id}/feed.xml`, json: `/services/${id}/feed.json` },
    badge: {
      src: `/badge/${id}.svg`,
      markdown: `[![Payable-Service Index: ${id}](${url})](${page})`,
      html: `<a href="${page}"><img src="${url}" alt="Payable-Service Index: ${id}"></a>`,
    },
  };
}

function describePrice(price: unknown): string {
  const { usd, display } = (price ?? {}) as { usd?: number | null; display?: string | null };
  if (display) return display;
  return typeof usd === 'number' ? `$${usd}` : 'unknown';
}
