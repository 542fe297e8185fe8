import type { DB } from '../../data/db.ts';
import type { Purchase } from '../../api/purchase/schemas.ts';
import { toApprovalView } from '../src/lib/purchase/view.ts';
import type { SiteContext } from '../src/lib/site.ts';
import { getDataStamp } from '../../data/pages.ts';
import { isFilteredQuery, readHomeQuery } from '../src/lib/home-query.ts';
import { buildSite, type BuildOptions, type BuildResult } from './build.ts';
import { getCompiled, getSourceKey, type CompiledSite } from './compile.ts';
import { renderHome } from './pages.ts';
import { FullBuildNeeded, refreshSite, renderChanged, type RefreshResult } from './refresh.ts';
import { getCurrentRelease, readBuildInfo } from './release.ts';
import { loadRenderer } from './render.ts';

/**
 * The site as `npm start` runs it: built before serving when missing or stale, rendered again after each crawl
 * pass (only what changed), and the home page rendered on request for a query. Operations run one at a time.
 */
export interface Site {
  distDir: string;
  /** Builds the site when there is none, the code or URLs changed, or the data is newer than the pages. */
  ensureBuilt(): Promise<'built' | 'refreshed' | 'fresh'>;
  /** Renders again what changed since the last render (a full build when no release can be updated). */
  refresh(): Promise<RefreshResult | BuildResult>;
  /** Renders again these services and the index pages. */
  renderChanged(ids: readonly string[]): Promise<RefreshResult | BuildResult>;
  /** The home page for a URL query (`rail=x402&offset=100`), or null when it is the static first page or no site is built. */
  renderHome(params: URLSearchParams): Promise<string | null>;
  /** The owner's approval page of a purchase, or null when no site is built. */
  renderPurchase(purchase: Purchase): Promise<string | null>;
}

/**
 * @example const site = createSite(db, { distDir: 'dist', siteUrl, stagingUrl, now: () => new Date() }); await site.ensureBuilt();
 */
export function createSite(db: DB, options: BuildOptions): Site {
  const site: SiteContext = { siteUrl: options.siteUrl, stagingUrl: options.stagingUrl };
  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };
  const orFullBuild = async <T>(work: () => Promise<T>): Promise<T | BuildResult> => {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof FullBuildNeeded)) throw error;
      options.log?.(`full build: ${error.message}`);
      return buildSite(db, options);
    }
  };

  return {
    distDir: options.distDir,
    ensureBuilt: () =>
      serialize(async () => {
        const reason = whyRebuild(options);
        if (reason) {
          options.log?.(`building the site: ${reason}`);
          await buildSite(db, options);
          return 'built';
        }
        const result = await orFullBuild(() => refreshSite(db, options));
        return 'rendered' in result && result.rendered + result.removed === 0 ? 'fresh' : 'refreshed';
      }),
    refresh: () => serialize(() => orFullBuild(() => refreshSite(db, options))),
    renderChanged: (ids) => serialize(() => orFullBuild(() => renderChanged(db, ids, options))),
    renderHome: async (params) => {
      const query = readHomeQuery(params);
      const compiled = isFilteredQuery(query) ? releasedCompile() : null;
      if (!compiled) return null;
      return renderHome({ db, renderer: await loadRenderer(compiled), site }, query);
    },
    renderPurchase: async (purchase) => {
      const compiled = releasedCompile();
      return compiled ? renderPurchasePage(compiled, site, purchase) : null;
    },
  };

  /** The compile the served release was rendered with: pages rendered on request match its assets. */
  function releasedCompile(): CompiledSite | null {
    const release = getCurrentRelease(options.distDir);
    const info = release ? readBuildInfo(release) : null;
    return info ? getCompiled(info.compiledKey) : null;
  }

  function whyRebuild({ distDir, siteUrl, stagingUrl, databasePath }: BuildOptions): string | null {
    const release = getCurrentRelease(distDir);
    if (!release) return `${distDir} is missing`;
    const info = readBuildInfo(release);
    if (!info) return `${distDir} was not made by a build`;
    if (info.compiledKey !== getSourceKey()) return 'the site code changed';
    if (info.siteUrl !== siteUrl || info.stagingUrl !== stagingUrl) return 'the site URL changed';
    if ((info.databasePath ?? null) !== (databasePath ?? null)) return 'the database is another one';
    if (getDataStamp(db).services === 0 && info.stamp.services > 0) return 'the database is empty';
    return null;
  }
}

/**
 * The owner's approval page of a purchase, rendered on request with a compiled site (also one not yet released).
 * @example await renderPurchasePage(await ensureCompiled(), { siteUrl, stagingUrl }, purchase);
 */
export async function renderPurchasePage(compiled: CompiledSite, site: SiteContext, purchase: Purchase): Promise<string> {
  return (await loadRenderer(compiled)).render('/purchase', { site, purchase: toApprovalView(purchase) });
}
