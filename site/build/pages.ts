import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DB } from '../../data/db.ts';
import { listFacilitators } from '../../data/facilitators.ts';
import { getDataTime, getFeedOrigin, getServiceDataTime, listServiceIds } from '../../data/pages.ts';
import { getStats } from '../../data/service-read.ts';
import { listRouteGroups } from '../src/lib/docs.ts';
import { toLlmsTxt } from '../src/lib/documents/llms-txt.ts';
import { toMarkdown } from '../src/lib/documents/document.ts';
import { toPricingDocument } from '../src/lib/documents/pricing-md.ts';
import { toPurchaseDocument } from '../src/lib/documents/purchase-md.ts';
import { toRobotsTxt } from '../src/lib/documents/robots-txt.ts';
import { toSitemapXml } from '../src/lib/documents/sitemap-xml.ts';
import { recentChanges } from '../../data/changes.ts';
import { FEED_SIZE, toAtomFeed, toJsonFeed, type FeedSpec } from '../src/lib/feeds.ts';
import { getFollowView, getRecentChangeRows } from '../src/lib/follow.ts';
import { formatUtc } from '../src/lib/format.ts';
import { getHomeView } from '../src/lib/home.ts';
import { EMPTY_QUERY, type HomeQuery } from '../src/lib/home-query.ts';
import { getListingView } from '../src/lib/listing.ts';
import type { SiteContext } from '../src/lib/site.ts';
import { getStatusView } from '../src/lib/status.ts';
import { toServiceSnapshot, toStatsSnapshot, writeServicesSnapshot } from '../src/lib/snapshots.ts';
import type { Output } from './output.ts';
import type { PageRenderer } from './render.ts';

/**
 * What a release holds, file by file: per service its listing page, the further pages of its endpoint rows and
 * its JSON snapshot; for the whole site the home page, the documents, the sitemap and the index snapshots.
 */

export interface SiteOptions {
  /** The site's origin, for canonical and absolute URLs. */
  siteUrl: string;
  /** Where the purchase preview is served. */
  stagingUrl: string;
  now: () => Date;
}

export interface RenderContext {
  db: DB;
  renderer: PageRenderer;
  out: Output;
  options: SiteOptions;
  site: SiteContext;
  /** The index snapshots' `generated_at`: the time of the newest data, so unchanged data renders the same bytes. */
  generatedAt: string;
}

/** Service ids are slugs (DESIGN: `a-z0-9` and `-`); anything else would be a path, so it fails the build. */
const SERVICE_ID = /^[a-z0-9](?:[a-z0-9-]{0,250})$/;

export function toRenderContext(db: DB, renderer: PageRenderer, out: Output, options: SiteOptions): RenderContext {
  return {
    db,
    renderer,
    out,
    options,
    site: { siteUrl: options.siteUrl, stagingUrl: options.stagingUrl },
    generatedAt: getDataTime(db) ?? options.now().toISOString(),
  };
}

/**
 * Renders one service's files, or removes them when it is no longer in the index; answers the pages rendered.
 * With `prune`, endpoint pages past the last (left from when it listed more) are removed too.
 */
export async function renderService(ctx: RenderContext, id: string, prune = false): Promise<number> {
  if (!SERVICE_ID.test(id)) throw new Error(`service id ${JSON.stringify(id)} is not a slug; refusing to write it as a path`);
  // A page's time windows end at its service's newest data, not at the render: unchanged data, unchanged bytes.
  const dataTime = getServiceDataTime(ctx.db, id);
  const listingOptions = { siteUrl: ctx.options.siteUrl, now: dataTime ? new Date(dataTime) : ctx.options.now() };
  const snapshot = toServiceSnapshot(ctx.db, id);
  const first = snapshot && getListingView(ctx.db, id, 1, listingOptions, snapshot);
  if (!snapshot || !first) {
    removeService(ctx.out, id);
    return 0;
  }
  const follow = getFollowView(ctx.db, id, ctx.options.siteUrl);
  ctx.out.write(`services/${id}/index.html`, await ctx.renderer.render(`/services/${id}`, { site: ctx.site, listing: first, follow }));
  const pages = first.endpoints.pages;
  for (let page = 2; page <= pages; page++) {
    const view = getListingView(ctx.db, id, page, listingOptions, snapshot);
    if (!view) throw new Error(`${id}: endpoint page ${page} of ${pages} vanished while rendering`);
    ctx.out.write(`services/${id}/endpoints/${page}/index.html`,
      await ctx.renderer.render(`/services/${id}/endpoints/${page}`, { site: ctx.site, listing: view }));
  }
  if (prune) pruneEndpointPages(ctx.out, id, pages);
  writeFeeds(ctx, {
    path: `/services/${id}/feed`, pagePath: `/services/${id}`, title: `${snapshot.name}: changes`,
    description: `What the Payable-Service Index saw change of ${snapshot.name}.`, changes: recentChanges(ctx.db, FEED_SIZE, id),
    emptySince: getFeedOrigin(ctx.db, id) ?? ctx.generatedAt,
  });
  ctx.out.write(`snapshots/services/${id}.json`, JSON.stringify(snapshot));
  return pages;
}

export function removeService(out: Output, id: string): void {
  if (!SERVICE_ID.test(id)) return;
  out.remove(`services/${id}`);
  out.remove(`snapshots/services/${id}.json`);
}

/** The ids that have a listing page in a release. */
export function listRenderedIds(root: string): string[] {
  const dir = join(root, 'services');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

/** Renders the pages and files about the whole index; answers the pages rendered. */
export async function renderSitePages(ctx: RenderContext, ids: readonly string[] = listServiceIds(ctx.db)): Promise<number> {
  const { db, out, renderer, site, options } = ctx;
  const docsOptions = { siteUrl: options.siteUrl, stagingUrl: options.stagingUrl, exampleId: ids[0] ?? 'api-example-com' };
  const stats = getStats(db);
  out.write('index.html', await renderHome(ctx, EMPTY_QUERY));
  out.write('404.html', await renderer.render('/404', { site }, 404));
  await renderStatus(ctx);
  out.write('docs/index.html', await renderer.render('/docs', { site, docs: listRouteGroups(docsOptions) }));
  out.write('changes/index.html', await renderer.render('/changes', { site, changes: getRecentChangeRows(db) }));
  out.write('check/index.html', await renderer.render('/check', { site }));
  await renderFacilitators(ctx);
  // Pages whose curl examples name this index's own origin.
  for (const page of ['submit', 'owners', 'submissions']) out.write(`${page}/index.html`, await renderer.render(`/${page}`, { site }));
  writeFeeds(ctx, {
    path: '/feed', pagePath: '/', title: 'Payable-Service Index: recent changes',
    description: 'Services listed, going live or dark, changing price, terms, endpoints or flags.', changes: recentChanges(db, FEED_SIZE),
    emptySince: getFeedOrigin(db) ?? ctx.generatedAt,
  });
  // Each document twice, from one source: Markdown for agents, a page for people.
  for (const [path, document] of [['pricing', toPricingDocument(docsOptions)], ['docs/purchase', toPurchaseDocument(docsOptions)]] as const) {
    out.write(`${path}.md`, toMarkdown(document));
    out.write(`${path}/index.html`, await renderer.render(`/${path}`, { site, document }));
  }
  out.write('llms.txt', toLlmsTxt({ ...docsOptions, total: stats.total, live: stats.live, lastCheck: formatUtc(stats.last_probe_at) }));
  out.write('robots.txt', toRobotsTxt(options.siteUrl));
  out.write('sitemap.xml', toSitemapXml(options.siteUrl, [...ids].sort()));
  out.writeInPieces('snapshots/services.json', (write) => writeServicesSnapshot(db, ctx.generatedAt, write));
  out.write('snapshots/stats.json', JSON.stringify(toStatsSnapshot(db, ctx.generatedAt)));
  return 3;
}

/** `/status`, rendered after every pass, also one that changed no service. */
export async function renderStatus(ctx: RenderContext): Promise<void> {
  ctx.out.write('status/index.html', await ctx.renderer.render('/status', { site: ctx.site, status: getStatusView(ctx.db, ctx.options.now()) }));
}

/** `/facilitators`, rendered after every pass like `/status`: its checks change no service. */
export async function renderFacilitators(ctx: RenderContext): Promise<void> {
  ctx.out.write('facilitators/index.html', await ctx.renderer.render('/facilitators', { site: ctx.site, facilitators: listFacilitators(ctx.db) }));
}

/** The home page for a query: the static first page, or a filtered page rendered on request. */
export function renderHome(ctx: Pick<RenderContext, 'db' | 'renderer' | 'site'>, query: HomeQuery): Promise<string> {
  return ctx.renderer.render('/', { site: ctx.site, home: getHomeView(ctx.db, query) });
}

/** A page's feeds, Atom and JSON Feed, beside it (`feed.xml`, `feed.json`). */
function writeFeeds(ctx: RenderContext, spec: Omit<FeedSpec, 'siteUrl'>): void {
  const full = { ...spec, siteUrl: ctx.options.siteUrl };
  const base = spec.path.slice(1);
  ctx.out.write(`${base}.xml`, toAtomFeed(full));
  ctx.out.write(`${base}.json`, toJsonFeed(full));
}

function pruneEndpointPages(out: Output, id: string, pages: number): void {
  const dir = join(out.root, 'services', id, 'endpoints');
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) {
    const page = Number(entry);
    if (!Number.isInteger(page) || page < 2 || page > pages) out.remove(`services/${id}/endpoints/${entry}`);
  }
}
