/**
 * What every page needs to know about the site itself.
 */

export const SITE_NAME = 'Payable-Service Index';

/**
 * The document title of a page titled `title`: the site name follows.
 * @example toPageTitle('API documentation') // 'API documentation · Payable-Service Index'
 */
export function toPageTitle(title: string): string {
  return title === SITE_NAME ? title : `${title} · ${SITE_NAME}`;
}

export interface SiteContext {
  /** The site's origin, for canonical and absolute URLs (`https://index.example`). */
  siteUrl: string;
  /** Where the purchase preview is served. */
  stagingUrl: string;
}

/** What a page finds in `Astro.locals` (declared for Astro in site/src/env.d.ts). */
export interface PageLocals {
  site?: SiteContext;
  home?: import('./home.ts').HomeView;
  listing?: import('./listing.ts').ListingView;
  docs?: import('./docs.ts').RouteGroup[];
  status?: import('./status.ts').StatusView;
  /** The recent changes page, and a listing page's follow sections. */
  changes?: import('./follow.ts').ChangeRowView[];
  follow?: import('./follow.ts').FollowView;
  /** The facilitator directory (`/facilitators`). */
  facilitators?: import('../../../domain/facilitators.ts').Facilitator[];
  /** The page of a document that is also served as Markdown (/pricing, /docs/purchase). */
  document?: import('./documents/document.ts').IndexDocument;
  /** The owner's approval page of one purchase. */
  purchase?: import('./purchase/view.ts').ApprovalView;
}

/**
 * The page's data from `Astro.locals`, or a thrown error naming what is missing: a build never renders a blank.
 * @example const view = requireLocal(Astro.locals.listing, 'listing', Astro.url.pathname);
 */
export function requireLocal<T>(value: T | undefined, name: string, path: string): T {
  if (value === undefined) throw new Error(`${path}: no "${name}" data in Astro.locals; pages are rendered by site/build/`);
  return value;
}
