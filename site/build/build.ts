import { cpSync, existsSync } from 'node:fs';
import type { DB } from '../../data/db.ts';
import { getDataStamp, listServiceIds } from '../../data/pages.ts';
import { ensureCompiled } from './compile.ts';
import { forEachConcurrent } from './concurrent.ts';
import { withLock } from './lock.ts';
import { createOutput } from './output.ts';
import { renderService, renderSitePages, toRenderContext, type SiteOptions } from './pages.ts';
import { createRelease, publishRelease, writeBuildInfo } from './release.ts';
import { loadRenderer } from './render.ts';

/** Services rendered at once: enough to keep the render threads busy while this thread reads and writes. */
export const IN_FLIGHT = 16;

export interface BuildOptions extends SiteOptions {
  /** Where the site is served from: a symlink to the current release. */
  distDir: string;
  /** The database's file, recorded so a release from another database is rebuilt, not updated. */
  databasePath?: string;
  log?: (line: string) => void;
}

export interface BuildResult {
  release: string;
  services: number;
  /** HTML pages rendered. */
  pages: number;
  /** Files written (pages, documents, snapshots), besides the copied assets. */
  files: number;
  /** Seconds until the new release was served. */
  seconds: number;
  /** Settles when the releases it replaced are removed. */
  pruned: Promise<void>;
}

/**
 * `npm run build`: renders every page and snapshot from the database into a new release and switches
 * `distDir` to it atomically (compiling the site's code first when it changed).
 * @example await buildSite(db, { distDir: 'dist', siteUrl: 'http://127.0.0.1:4321', stagingUrl: '...', now: () => new Date() });
 */
export async function buildSite(db: DB, options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const compiled = await ensureCompiled({ log: options.log });
  return withLock(`${options.distDir}.lock`, async () => {
    const release = createRelease(options.distDir, options.now());
    if (existsSync(compiled.clientDir)) cpSync(compiled.clientDir, release, { recursive: true });
    const renderer = await loadRenderer(compiled);
    const out = createOutput(release, { atomic: false });
    // Taken first: whatever changes while this build reads is newer than the stamp, so the next refresh renders it.
    const stamp = getDataStamp(db);
    const ctx = toRenderContext(db, renderer, out, options);
    const ids = listServiceIds(db);
    let pages = 0;
    await forEachConcurrent(ids, IN_FLIGHT, async (id) => {
      const rendered = await renderService(ctx, id);
    pages += rendered;
    });
    pages += await renderSitePages(ctx, ids);
    writeBuildInfo(release, {
      compiledKey: compiled.key,
      siteUrl: options.siteUrl,
      stagingUrl: options.stagingUrl,
      databasePath: options.databasePath ?? null,
      stamp,
      builtAt: options.now().toISOString(),
      renderedAt: options.now().toISOString(),
    });
    const pruned = publishRelease(options.distDir, release);
    const seconds = (performance.now() - started) / 1000;
    options.log?.(`built ${ids.length} services (${pages} pages, ${out.written} files) into ${release} in ${seconds.toFixed(1)} s`);
    // Older releases are removed in the background: the new one is served already.
    pruned.catch((error) => options.log?.(`could not remove an old release: ${error instanceof Error ? error.message : error}`));
    return { release, services: ids.length, pages, files: out.written, seconds, pruned };
  });
}
