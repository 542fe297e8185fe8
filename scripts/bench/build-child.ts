/**
 * One measured site build, in its own process so its peak memory is its own:
 * `build-child.ts full|refresh <database> <distDir>`; prints one JSON line with the figures.
 */
import { openDatabase } from '../../data/db.ts';
import { buildSite } from '../../site/build/build.ts';
import { ensureCompiled } from '../../site/build/compile.ts';
import { refreshSite } from '../../site/build/refresh.ts';

export interface BuildChildReport {
  mode: 'full' | 'refresh';
  seconds: number;
  compileSeconds: number | null;
  compilePeakRssBytes: number | null;
  services: number;
  pages: number;
  peakRssBytes: number;
}

const [mode, databasePath, distDir] = process.argv.slice(2);
if ((mode !== 'full' && mode !== 'refresh') || !databasePath || !distDir) {
  console.error('usage: build-child.ts full|refresh <database> <distDir>');
  process.exit(2);
}
const db = openDatabase(databasePath);
const options = { distDir, siteUrl: 'https://index.example', stagingUrl: 'https://index.example', now: () => new Date('2026-11-01T12:00:00.000Z') };
const started = performance.now();
const compiled = await ensureCompiled();
let services: number;
let pages: number;
if (mode === 'full') {
  const result = await buildSite(db, options);
  await result.pruned;
  ({ services, pages } = result);
} else {
  const result = await refreshSite(db, options);
  services = result.rendered;
  pages = result.pages;
}
const report: BuildChildReport = {
  mode,
  seconds: (performance.now() - started) / 1000,
  compileSeconds: compiled.compiled?.seconds ?? null,
  compilePeakRssBytes: compiled.compiled?.peakRssBytes ?? null,
  services,
  pages,
  peakRssBytes: process.resourceUsage().maxRSS * 1024,
};
console.log(JSON.stringify(report));
db.close();
