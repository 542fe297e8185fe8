import type { DB } from '../../data/db.ts';
import { getDataStamp, listServiceIds, listStateChangedIds, listTouchedIds, type DataStamp } from '../../data/pages.ts';
import { IN_FLIGHT } from './build.ts';
import { getCompiled } from './compile.ts';
import { forEachConcurrent } from './concurrent.ts';
import { HISTORY_INTERVAL_MS, isHistoryDue, toDataClock } from './history.ts';
import { withLock } from './lock.ts';
import { createOutput } from './output.ts';
import { listRenderedIds, renderFacilitators, renderService, renderSitePages, renderStatus, toRenderContext, type SiteOptions } from './pages.ts';
import { getCurrentRelease, readBuildInfo, writeBuildInfo } from './release.ts';
import { loadRenderer } from './render.ts';

/**
 * Pages follow the state, not the clock: after a probe or discovery pass, the services whose state changed are
 * rendered again at once, and those only checked or written when their history is due (site/build/history.ts), into the
 * served release, each file replaced atomically; the home page, documents and index snapshots are
 * rendered once per refresh. The release's own compile is reused, so new pages match its assets.
 */

export interface RefreshOptions extends SiteOptions {
  distDir: string;
  log?: (line: string) => void;
}

export interface RefreshResult {
  /** Services rendered again. */
  rendered: number;
  /** Services whose pages were removed (no longer in the index). */
  removed: number;
  pages: number;
  seconds: number;
}

/** Why an incremental render cannot run and a full build is needed instead. */
export class FullBuildNeeded extends Error {
  override name = 'FullBuildNeeded';
}

/**
 * Renders again the services with these ids (removing the pages of those no longer in the index), then the
 * pages about the whole index. Throws `FullBuildNeeded` when there is no release to update.
 * @example await renderChanged(db, ['api-example-com'], { distDir: 'dist', siteUrl, stagingUrl, now: () => new Date() });
 */
export async function renderChanged(db: DB, ids: readonly string[], options: RefreshOptions): Promise<RefreshResult> {
  return withLock(`${options.distDir}.lock`, () => renderInto(db, options, () => ({ ids: [...new Set(ids)].sort(), removed: [] })));
}

/**
 * Renders again what changed since the served release was last rendered: services whose state changed since its
 * data stamp, services checked or written whose history is due, and services that left the index. Does nothing when
 * nothing changed.
 * @example await refreshSite(db, { distDir: 'dist', siteUrl, stagingUrl, now: () => new Date() }); // after a crawl pass
 */
export async function refreshSite(db: DB, options: RefreshOptions): Promise<RefreshResult> {
  return withLock(`${options.distDir}.lock`, () =>
    renderInto(db, options, (release, info) => {
      const present = new Set(listServiceIds(db));
      return {
        ids: listDueIds(db, info.stamp),
        removed: listRenderedIds(release).filter((id) => !present.has(id)),
      };
    }));
}

/**
 * The services to render again since `since`: a changed state at once; a new check or a crawl's write (a directory's
 * new description) when the service's history interval ends. Every check or write of the last interval is a
 * candidate, not only those since `since`: one that came just after a render is shown at the interval's end.
 */
export function listDueIds(db: DB, since: DataStamp): string[] {
  const then = toDataClock(since);
  const now = toDataClock(getDataStamp(db));
  const recent = then === null ? null : new Date(Date.parse(then) - HISTORY_INTERVAL_MS).toISOString();
  const due = listTouchedIds(db, recent).filter((id) => isHistoryDue(id, then, now));
  return [...new Set([...listStateChangedIds(db, since), ...due])].sort();
}

type Plan = (release: string, info: NonNullable<ReturnType<typeof readBuildInfo>>) => { ids: string[]; removed: string[] };

async function renderInto(db: DB, options: RefreshOptions, plan: Plan): Promise<RefreshResult> {
  const started = performance.now();
  const release = getCurrentRelease(options.distDir);
  const info = release ? readBuildInfo(release) : null;
  if (!release || !info) throw new FullBuildNeeded(`${options.distDir} has no release to update`);
  const compiled = getCompiled(info.compiledKey);
  if (!compiled) throw new FullBuildNeeded(`the compile ${info.compiledKey} of the served release is gone`);
  if (info.siteUrl !== options.siteUrl || info.stagingUrl !== options.stagingUrl) {
    throw new FullBuildNeeded(`the site URL changed (${info.siteUrl} -> ${options.siteUrl})`);
  }
  const stamp = getDataStamp(db);
  const { ids, removed } = plan(release, info);
  const renderer = await loadRenderer(compiled);
  const out = createOutput(release, { atomic: true });
  const ctx = toRenderContext(db, renderer, out, options);
  if (ids.length === 0 && removed.length === 0) {
    // The status and facilitator pages follow every pass, also one that changed no service.
    await renderStatus(ctx);
    await renderFacilitators(ctx);
    return { rendered: 0, removed: 0, pages: 0, seconds: 0 };
  }
  let pages = 0;
  await forEachConcurrent([...ids, ...removed], IN_FLIGHT, async (id) => {
    const rendered = await renderService(ctx, id, true);
    pages += rendered;
  });
  pages += await renderSitePages(ctx);
  writeBuildInfo(release, { ...info, stamp, renderedAt: options.now().toISOString() });
  const seconds = (performance.now() - started) / 1000;
  options.log?.(`rendered ${ids.length} changed services (${pages} pages), removed ${removed.length}, in ${seconds.toFixed(2)} s`);
  return { rendered: ids.length, removed: removed.length, pages, seconds };
}
