import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createApp, serveApp } from '../api/app.ts';
import type { Config } from '../api/config.ts';
import { testConfig } from '../api/testing.ts';
import type { DB } from '../data/db.ts';
import { createSite } from './build/site.ts';
import { buildFixtureSite, FIXTURE_NOW, type FixtureSite } from './testing.ts';

/*
 * What every browser test shares: Debian's chromium (never a downloaded browser), started headless without the
 * background connections a closed network refuses, the real app serving a built site to it, and axe-core's check of a
 * page.
 */

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The serious and critical axe violations of the page as it stands, each with its first three targets.
 * @example expect(await seriousViolations(page)).toEqual([]);
 */
export async function seriousViolations(page: Page): Promise<Array<{ id: string; targets: string[] }>> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map(({ id, targets }) => ({ id, targets }));
}

export interface PagesInChromium {
  /** The app's origin on loopback. */
  origin: string;
  browser: Browser;
  site: FixtureSite;
  /** Closes chromium and the server and removes the built site. */
  close(): Promise<void>;
}

/**
 * The real app serving a site built from `db` over a socket, and Debian's chromium to read it.
 * @example const { origin, browser, close } = await servePagesInChromium(openFixtureDatabase());
 */
export async function servePagesInChromium(db: DB, config: Config = testConfig()): Promise<PagesInChromium> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash scripts/ensure-chromium.sh\``);
  const site = await buildFixtureSite(db);
  const pages = createSite(db, site.options);
  const app = createApp({
    db, config, now: () => FIXTURE_NOW, lookup: async () => [],
    site: { distDir: site.distDir, renderHome: pages.renderHome, renderPurchase: pages.renderPurchase },
  });
  const server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const close = async () => {
    await browser.close();
    await server.close(true);
    site.remove();
  };
  return { origin: new URL(server.url!).origin, browser, site, close };
}
