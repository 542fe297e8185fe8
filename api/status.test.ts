import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDirectoryConfig } from '../crawler/directories.ts';
import { createProbeAgent, type ProbeAgent } from '../crawler/probe.ts';
import { runCrawl } from '../crawler/run.ts';
import { parseAllowList } from '../net/guard.ts';
import { upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { OFFLINE_NOTICE } from '../data/crawl-status.ts';
import { IndexStatus } from '../domain/schemas.ts';
import { BEHAVIOURS } from '../scripts/fleet/behaviours.ts';
import { startFleet, type Fleet } from '../scripts/fleet.ts';
import { buildFixtureSite } from '../site/testing.ts';
import { createSite } from '../site/build/site.ts';
import { createApp, serveApp } from './app.ts';
import { testConfig } from './testing.ts';

/**
 * `GET /api/v1/status` and the `/status` page after real crawls: of the local fleet with one directory that cannot
 * be read, and of services none of which answers (a machine without internet access).
 */
const TIMEOUT_MS = 2000;
const NOW = new Date('2026-11-01T12:00:00.000Z');
/** A closed port: the directory read fails with a refused connection. */
const BROKEN_DIRECTORY = 'http://127.0.0.1:9/discovery/resources';
let fleet: Fleet;
let agent: ProbeAgent;
const closers: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  fleet = await startFleet({ count: BEHAVIOURS.length, behaviours: BEHAVIOURS, latency: 'none', probeTimeoutMs: TIMEOUT_MS });
  agent = createProbeAgent({ allow: parseAllowList('127.0.0.1') });
});
afterAll(async () => {
  for (const close of closers) await close();
  await agent.dispatcher.close();
  await fleet.close();
});

/** The app serving `db` and its built site over a socket. */
async function serve(db: ReturnType<typeof openTestDatabase>) {
  const site = await buildFixtureSite(db, { now: () => NOW });
  const pages = createSite(db, site.options);
  const app = createApp({ db, config: testConfig(), now: () => NOW, site: { distDir: site.distDir, renderHome: pages.renderHome } });
  const server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  closers.push(() => server.close(true), () => site.remove());
  const origin = new URL(server.url!).origin;
  return {
    status: async () => IndexStatus.parse(await (await fetch(`${origin}/api/v1/status`)).json()),
    page: async (path: string) => (await fetch(`${origin}${path}`)).text(),
    distDir: site.distDir,
  };
}

describe('the crawler status', () => {
  it('reports the last passes, each directory read and the one that failed, and no offline notice', async () => {
    const db = openTestDatabase();
    const summary = await runCrawl(db, {
      agent,
      directories: [toDirectoryConfig(`bazaar=${fleet.directories.bazaar}`), toDirectoryConfig(`mpp=${fleet.directories.mpp}`), toDirectoryConfig(`bazaar=${BROKEN_DIRECTORY}`)],
      discover: true,
      probe: true,
      timeoutMs: TIMEOUT_MS,
      now: () => NOW,
    });
    const served = await serve(db);
    const status = await served.status();
    expect(status.offline).toBe(false);
    expect(status.notice).toBeNull();
    expect(status.probe_pass).toMatchObject({ kind: 'full', status: 'finished', started_at: NOW.toISOString(), duration_ms: 0, probed: fleet.endpoints.length });
    expect(status.probe_pass!.live).toBe(summary.probes!.live);
    expect(status.probe_pass!.outcomes.reduce((sum, row) => sum + row.probes, 0)).toBe(fleet.endpoints.length);
    expect(status.probe_pass!.outcomes).toContainEqual({ outcome: 'challenge detected', probes: summary.probes!.live });
    expect(status.discovery_pass?.services).toEqual(summary.discovery!.services);
    expect(status.directories).toHaveLength(3);
    const broken = status.directories.find((read) => read.url === BROKEN_DIRECTORY)!;
    expect(broken.error).toMatch(/\S/);
    expect(broken.endpoints).toBe(0);
    for (const read of status.directories.filter((one) => one.url !== BROKEN_DIRECTORY)) expect(read).toMatchObject({ error: null, endpoints: expect.any(Number) });
    expect(Math.min(...status.directories.filter((one) => one.error === null).map((one) => one.endpoints))).toBeGreaterThan(0);

    const page = await served.page('/status');
    expect(page).toContain('Crawler status');
    expect(page).toContain(BROKEN_DIRECTORY);
    expect(page).toContain(broken.error!.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;'));
    expect(page).toContain(`<dt>Services probed</dt><dd>${fleet.endpoints.length} `);
    // The failed directory's mark is the badge's own glyph (drawn by the style sheet), once; the outcomes have their heading.
    expect(page).not.toContain('✕');
    expect(page.match(/<span class="badge bad">failed<\/span>/g)).toHaveLength(1);
    expect(page).toMatch(/<h3 id="outcomes">Probe outcomes<\/h3>/);
    expect(page.indexOf('id="outcomes"')).toBeLessThan(page.indexOf('id="pass-discovery"'));
    expect(page).toContain('any HTTP answer, challenge or not');
    expect(page).not.toContain('may be offline');
    expect(await served.page('/')).not.toContain('may be offline');
  });

  it('tells the operator on /status, once, that this machine may be offline when the last pass reached none of the services; never the public home page', async () => {
    const db = openTestDatabase();
    upsertServices(db, [1, 2, 3].map((n) => makeService({ id: `dark-${n}`, endpoint: `http://127.0.0.1:9/dark-${n}` })), NOW.toISOString());
    await runCrawl(db, { agent, directories: [], discover: false, probe: true, timeoutMs: TIMEOUT_MS, now: () => NOW });
    const served = await serve(db);
    const status = await served.status();
    expect(status).toMatchObject({ offline: true, probe_pass: { kind: 'probe', probed: 3, reached: 0, live: 0 }, discovery_pass: null, directories: [] });
    expect(status.notice).toBe(OFFLINE_NOTICE);
    expect(OFFLINE_NOTICE).toMatch(/^The last probe pass reached none of the services .*: this machine may be offline\.$/);
    const page = await served.page('/status');
    expect(page.split('may be offline').length - 1, 'said once').toBe(1);
    expect(page).toContain('class="notice"');
    expect(await served.page('/')).not.toContain('may be offline');
    expect(readFileSync(join(served.distDir, 'index.html'), 'utf8')).not.toContain('class="notice"');
  });
});
