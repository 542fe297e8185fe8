import { Feed } from 'feed';
import type { Change } from '../../../domain/schemas.ts';
import { cleanText } from '../../../domain/text.ts';
import { SITE_NAME } from './site.ts';

/**
 * The change log as feeds, made with the `feed` package: Atom 1.0, and JSON Feed 1.1 (the package writes version 1;
 * its output is lifted to 1.1 here: `authors` for `author`, and each change's sentence as `content_text`, which is
 * what it is). Change summaries and titles hold untrusted names and reasons, so every text is cleaned (rows written
 * before text was cleaned where it enters still hold characters XML 1.0 forbids, which would leave the Atom document
 * not well-formed), and Atom gets them HTML-escaped.
 */

export const FEED_SIZE = 100;

export interface FeedSpec {
  siteUrl: string;
  /** The feed's own path without extension: `/feed`, `/services/{id}/feed`. */
  path: string;
  /** The page the feed belongs to: `/`, `/services/{id}`. */
  pagePath: string;
  title: string;
  description: string;
  /** Newest first, as recentChanges answers them. */
  changes: readonly Change[];
  /**
   * The feed's date while it holds no change: when its service (or the index) was first indexed, never the build
   * time, so a rebuild of unchanged data writes the same bytes and a publish uploads nothing for it.
   */
  emptySince: string;
}

/** What a change is called in a feed reader's list: its service and what happened. */
const TYPE_TITLES: Record<Change['type'], string> = {
  listed: 'listed', went_live: 'went live', went_dark: 'went dark', price_changed: 'price changed', terms_changed: 'terms changed',
  endpoints_changed: 'endpoints changed', flags_changed: 'flags changed', delisted: 'delisted', relisted: 'relisted', edited: 'edited',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function toFeed(spec: FeedSpec, escape: boolean): Feed {
  const home = `${spec.siteUrl}${spec.pagePath}`;
  const text = (value: string) => (escape ? escapeHtml(cleanText(value)) : cleanText(value));
  const feed = new Feed({
    id: home,
    title: cleanText(spec.title),
    description: cleanText(spec.description),
    link: home,
    updated: new Date(spec.changes[0]?.at ?? spec.emptySince),
    generator: SITE_NAME,
    feedLinks: { atom: `${spec.siteUrl}${spec.path}.xml`, json: `${spec.siteUrl}${spec.path}.json` },
    author: { name: SITE_NAME, link: `${spec.siteUrl}/` },
    copyright: 'Facts observed by the index; service names and descriptions as their directories list them.',
  });
  for (const change of spec.changes) {
    feed.addItem({
      id: `${spec.siteUrl}/api/v1/changes?after=${previousId(change.id)}&limit=1`,
      title: text(`${change.service_id} ${TYPE_TITLES[change.type]}`),
      link: `${spec.siteUrl}/services/${change.service_id}`,
      date: new Date(change.at),
      published: new Date(change.at),
      description: text(change.summary),
    });
  }
  return feed;
}

/** The id before a change's: the cursor whose page starts with it, so each entry's id is a URL answering it. */
const previousId = (id: string) => String(Number(id) - 1).padStart(id.length, '0');

/** The Atom 1.0 document of a feed. */
export function toAtomFeed(spec: FeedSpec): string {
  return toFeed(spec, true).atom1();
}

/** The JSON Feed 1.1 document of a feed. */
export function toJsonFeed(spec: FeedSpec): string {
  const { author, items, ...rest } = JSON.parse(toFeed(spec, false).json1()) as {
    author?: Record<string, string>;
    items: Array<Record<string, unknown>>;
  };
  return JSON.stringify({
    ...rest,
    version: 'https://jsonfeed.org/version/1.1',
    ...(author ? { authors: [author] } : {}),
    language: 'en',
    // The summary went in as the item's description, which the package writes as content_html; it is plain text.
    items: items.map(({ content_html: summary, ...item }) => ({ ...item, content_text: summary ?? '' })),
  });
}
