import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import type { DataStamp } from '../../data/pages.ts';

/**
 * Releases: every full build renders into a new folder `<dist>.releases/<id>/`, and `<dist>` is a symlink
 * switched to it with one rename, so a reader sees the old site or the new one and never half of either, even
 * when a build is killed. The previous release stays for readers still holding its files; older ones go.
 */

/** What a release records about itself, in `<release>/.build.json` (dotfiles are never served). */
export interface BuildInfo {
  /** The compile (site code) it was rendered with; incremental renders reuse it. */
  compiledKey: string;
  siteUrl: string;
  stagingUrl: string;
  /** The database it was rendered from, when given (a different database means a full build). */
  databasePath: string | null;
  /** The data as of the last render into it. */
  stamp: DataStamp;
  builtAt: string;
  renderedAt: string;
}

const INFO_FILE = '.build.json';

/** The folder holding the releases of `distDir`. */
export const releasesDirOf = (distDir: string) => `${distDir}.releases`;

/**
 * A new, empty release folder for `distDir`.
 * @example const release = createRelease('dist'); // dist.releases/20261101T120000Z-4242
 */
export function createRelease(distDir: string, now = new Date()): string {
  const id = `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}-${process.pid}`;
  const dir = join(releasesDirOf(distDir), id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The folder `distDir` serves now (the symlink's target, or `distDir` itself when it is a plain folder), or null. */
export function getCurrentRelease(distDir: string): string | null {
  try {
    return realpathSync(distDir);
  } catch {
    return null;
  }
}

/**
 * Switches `distDir` to `release` atomically, then removes every release but this one and the one it replaced;
 * answers when they are gone (the switch itself is done when this returns its promise).
 * A plain `distDir` folder (not made by a release) is moved aside into the releases first.
 */
export function publishRelease(distDir: string, release: string): Promise<void> {
  const previous = getCurrentRelease(distDir);
  if (existsSync(distDir) && !lstatSync(distDir).isSymbolicLink()) {
    renameSync(distDir, join(releasesDirOf(distDir), `plain-${Date.now()}`));
  }
  // The new link is made beside the releases, then renamed over the old one: rename(2) replaces it atomically.
  const link = join(releasesDirOf(distDir), `.link-${process.pid}`);
  rmSync(link, { force: true });
  symlinkSync(relative(dirname(distDir), release), link);
  renameSync(link, distDir);
  const keep = new Set([basename(release), previous ? basename(previous) : '']);
  const old = readdirSync(releasesDirOf(distDir)).filter((entry) => !keep.has(entry));
  return Promise.all(old.map((entry) => rm(join(releasesDirOf(distDir), entry), { recursive: true, force: true }))).then(() => undefined);
}

/** The build info of a release, or null when it has none (not made by a release, or from a killed build). */
export function readBuildInfo(release: string): BuildInfo | null {
  try {
    return JSON.parse(readFileSync(join(release, INFO_FILE), 'utf8')) as BuildInfo;
  } catch {
    return null;
  }
}

export function writeBuildInfo(release: string, info: BuildInfo): void {
  const path = join(release, INFO_FILE);
  writeFileSync(`${path}.tmp`, JSON.stringify(info, null, 2));
  renameSync(`${path}.tmp`, path);
}
