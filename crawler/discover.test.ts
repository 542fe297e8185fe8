import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLastCrawlRun } from '../data/crawl.ts';
import { listServices } from '../data/service-list.ts';
import { getServiceInput, upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { describeFailedDirectories, discover } from './discover.ts';
import { DEFAULT_DIRECTORIES, toDirectoryConfig } from './directories.ts';
import { createProbeAgent } from './probe.ts';
import { runCrawl } from './run.ts';
import { parseAllowList } from '../net/guard.ts';

const bazaar = JSON.parse(readFileSync(new URL('./sources/fixtures/bazaar-resources.excerpt.json', import.meta.url), 'utf8'));
const mpp = readFileSync(new URL('./sources/fixtures/mpp-services.excerpt.json', import.meta.url), 'utf8');
const NOW = () => new Date('2026-11-01T00:00:00.000Z');
const bazaarRequests: string[] = [];
let secondBazaarUp = true;
let bazaarFailsAfterFirstPage = false;

/** A real local directory host: a Bazaar list that snaps pages to 2 items, mpp.dev, and broken directories. */
let server: Server;
let origin = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const pageFails = offset > 0 && bazaarFailsAfterFirstPage;
    if (url.pathname === '/discovery/resources') {
      bazaarRequests.push(url.search);
      if (pageFails) return res.writeHead(500).end();
      const items = bazaar.items.slice(offset, offset + 2);
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ x402Version: 1, items, pagination: { limit: 2, offset, total: bazaar.items.length } }));
    }
    if (url.pathname === '/ignores-offset') {
      return res.end(JSON.stringify({ x402Version: 1, items: bazaar.items.slice(0, 2) }));
    }
    if (url.pathname === '/second-bazaar') {
      if (!secondBazaarUp) return res.writeHead(503).end();
      const item = { ...bazaar.items[0], resource: `${new URL(bazaar.items[0].resource).origin}/from-second` };
      return res.end(JSON.stringify({ x402Version: 1, items: [item], pagination: { limit: 100, offset: 0, total: 1 } }));
    }
    if (url.pathname === '/split-bazaar') {
      // One host's endpoints on both pages: /a on the first, /b on the second.
      if (pageFails) return res.writeHead(500).end();
      const at = (path: string) => ({ ...bazaar.items[0], resource: `http://split.example${path}` });
      const items = offset === 0 ? [at('/a'), bazaar.items[1]] : [at('/b')];
      return res.end(JSON.stringify({ x402Version: 1, items, pagination: { limit: 2, offset, total: 3 } }));
    }
    if (url.pathname === '/api/services') return res.end(mpp);
    if (url.pathname === '/500') return res.writeHead(500).end('oops');
    if (url.pathname === '/not-json') return res.end('<html>directory</html>');
    if (url.pathname === '/wrong-shape') return res.end(JSON.stringify({ hello: 'world' }));
    if (url.pathname === '/slow') return; // never answers
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const directories = () =>
  ['bazaar=/discovery/resources', 'mpp=/api/services', 'bazaar=/500', 'mpp=/not-json', 'mpp=/wrong-shape', 'bazaar=/slow'].map((spec) => {
    const [kind, path] = spec.split('=');
    return toDirectoryConfig(`${kind}=${origin}${path}`);
  });

describe('discover', () => {
  it('reads every directory to the end, and one failing never stops the others', async () => {
    const db = openTestDatabase();
    bazaarRequests.length = 0;
    const summary = await discover(db, { directories: directories(), now: NOW, timeoutMs: 500 });
    const byUrl = Object.fromEntries(summary.directories.map((d) => [d.url.replace(origin, ''), d]));
    expect(byUrl['/discovery/resources']).toMatchObject({ endpoints: 4, pages: 2, error: null });
    expect(bazaarRequests).toEqual(['?type=http&limit=100&offset=0', '?type=http&limit=100&offset=2']);
    expect(byUrl['/api/services']).toMatchObject({ endpoints: 23, error: null });
    expect(byUrl['/500']?.error).toBe('answered 500');
    expect(byUrl['/not-json']?.error).toBe('not JSON');
    expect(byUrl['/wrong-shape']).toMatchObject({ endpoints: 0, error: 'nothing could be read (1 skipped): not the shape of a mpp.dev directory' });
    expect(byUrl['/slow']?.error).toBe('timed out after 0.5 s');
    expect(summary.services).toEqual({ found: 10, new: 10, updated: 0 });
    expect(describeFailedDirectories(summary.directories)).toBe('4 of 6 directories could not be read: bazaar ×2, mpp.dev ×2; /status lists each error');
    const ids = listServices(db, { filters: {}, page: { limit: 100, offset: 0 }, sort: 'live' }).services.map((s) => s.id);
    expect(ids).toContain('api-apex-db-org');
    expect(ids).toContain('blocksearch-dev');
    expect(ids).toContain('mpp-orthogonal-com');
  });

  it('says in one line when no directory could be read: this machine may be offline', async () => {
    const closed = ['bazaar', 'bazaar', 'mpp'].map((kind, k) => toDirectoryConfig(`${kind}=http://127.0.0.1:9/directory-${k}`));
    const summary = await discover(openTestDatabase(), { directories: closed, now: NOW, timeoutMs: 500 });
    expect(describeFailedDirectories(summary.directories)).toBe('3 directories could not be reached (offline?): bazaar ×2, mpp.dev; /status lists each error');
    expect(describeFailedDirectories(summary.directories.slice(0, 0))).toBeNull();
  });

  it('stops paging a directory that ignores offset', async () => {
    const db = openTestDatabase();
    const summary = await discover(db, { directories: [toDirectoryConfig(`bazaar=${origin}/ignores-offset`)], now: NOW });
    expect(summary.directories[0]).toMatchObject({ pages: 2, endpoints: 2 });
  });

  it('is idempotent: a second crawl of the same data changes nothing', async () => {
    const db = openTestDatabase();
    await discover(db, { directories: directories().slice(0, 2), now: NOW });
    const ids = listServices(db, { filters: {}, page: { limit: 100, offset: 0 }, sort: 'live' }).services.map((s) => s.id);
    const before = ids.map((id) => getServiceInput(db, id));
    const again = await discover(db, { directories: directories().slice(0, 2), now: () => new Date('2026-11-02T00:00:00.000Z') });
    expect(again.services).toEqual({ found: 10, new: 0, updated: 10 });
    expect(ids.map((id) => getServiceInput(db, id))).toEqual(before);
  });

  it('keeps what only a failed directory lists while another of its kind is read', async () => {
    const db = openTestDatabase();
    const bazaars = [toDirectoryConfig(`bazaar=${origin}/discovery/resources`), toDirectoryConfig(`bazaar=${origin}/second-bazaar`)];
    const id = 'api-dev-intra-tls2-dctx-link';
    const paths = () => getServiceInput(db, id)!.endpoints.map((e) => new URL(e.url).pathname);
    await discover(db, { directories: bazaars, now: NOW });
    expect(paths()).toContain('/from-second');
    secondBazaarUp = false;
    try {
      const summary = await discover(db, { directories: bazaars, now: NOW });
      expect(summary.directories.map((d) => d.error)).toEqual([null, 'answered 503']);
    } finally {
      secondBazaarUp = true;
    }
    expect(paths()).toContain('/from-second');
  });

  it('keeps the pages a directory gave before a later one failed, and unlists nothing of its kind', async () => {
    const bazaar = [toDirectoryConfig(`bazaar=${origin}/discovery/resources`)];
    const fresh = openTestDatabase();
    const crawled = openTestDatabase();
    await discover(crawled, { directories: bazaar, now: NOW });
    const ids = listServices(crawled, { filters: {}, page: { limit: 100, offset: 0 }, sort: 'live' }).services.map((s) => s.id);
    const before = ids.map((id) => getServiceInput(crawled, id));
    bazaarFailsAfterFirstPage = true;
    try {
      const summary = await discover(fresh, { directories: bazaar, now: NOW });
      expect(summary.directories[0]).toMatchObject({ endpoints: 2, pages: 1, error: 'the page at offset 2 answered 500' });
      expect(summary.services.new).toBeGreaterThan(0);
      await discover(crawled, { directories: bazaar, now: () => new Date('2026-11-02T00:00:00.000Z') });
    } finally {
      bazaarFailsAfterFirstPage = false;
    }
    const firstPage = listServices(fresh, { filters: {}, page: { limit: 100, offset: 0 }, sort: 'live' }).services.map((s) => s.id);
    expect(firstPage.length).toBeGreaterThan(0);
    expect(ids).toEqual(expect.arrayContaining(firstPage));
    expect(ids.map((id) => getServiceInput(crawled, id))).toEqual(before);
  });

  it('keeps the endpoints a host has on the pages a failing directory did not give', async () => {
    const db = openTestDatabase();
    const split = [toDirectoryConfig(`bazaar=${origin}/split-bazaar`)];
    const paths = () => getServiceInput(db, 'split-example')!.endpoints.map((e) => new URL(e.url).pathname).sort();
    await discover(db, { directories: split, now: NOW });
    expect(paths()).toEqual(['/a', '/b']);
    const before = getServiceInput(db, 'split-example');
    bazaarFailsAfterFirstPage = true;
    try {
      await discover(db, { directories: split, now: () => new Date('2026-11-02T00:00:00.000Z') });
    } finally {
      bazaarFailsAfterFirstPage = false;
    }
    expect(getServiceInput(db, 'split-example')).toEqual(before);
  });

  it('keeps listings from sources it did not read, and a still-listed main endpoint', async () => {
    const db = openTestDatabase();
    const seeded = makeService({
      id: 'tako-com',
      endpoint: 'https://tako.com/',
      sources: [{ source: 'open402', url: 'https://registry.example/snapshot.json' }],
    });
    upsertServices(db, [seeded], NOW().toISOString());
    await discover(db, { directories: [toDirectoryConfig(`mpp=${origin}/api/services`)], now: NOW });
    const merged = getServiceInput(db, 'tako-com')!;
    expect(merged.sources.map((s) => s.source).sort()).toEqual(['mpp.dev', 'open402']);
    expect(merged.endpoint).toBe('https://tako.com/');
    expect(merged.endpoints.length).toBe(11);
    expect(merged.name).not.toBe(seeded.name);
  });
});

/** The real registry excerpt, and the shapes the registry may plausibly change to, each holding the same entries. */
const registry = JSON.parse(readFileSync(new URL('./sources/fixtures/open-402-snapshot.excerpt.json', import.meta.url), 'utf8'));
type Entry = Record<string, unknown>;
const entries: Entry[] = registry.entries;
const joined = (value: unknown) => (Array.isArray(value) ? value.join(', ') : value);
const REGISTRY_SHAPES: Record<string, unknown> = {
  'as published': registry,
  'a bare list': entries,
  'keyed by domain': { generated_at: registry.generated_at, entries: Object.fromEntries(entries.map(({ domain, ...rest }) => [domain, rest])) },
  'under domains, with URLs': { domains: entries.map(({ domain, ...rest }) => ({ ...rest, url: `https://${domain}/` })) },
  'lists as texts': { entries: entries.map((e) => ({ ...e, protocols: joined(e.protocols), networks: joined(e.networks), assets: joined(e.assets) })) },
  'renamed name': { entries: entries.map(({ display_name, ...rest }) => ({ ...rest, name: display_name })) },
};

describe('the Open 402 registry as a directory', () => {
  let registryServer: Server;
  let registryOrigin = '';
  const registryUrl = (shape: string) => `${registryOrigin}/registry/${encodeURIComponent(shape)}/snapshot.json`;
  beforeAll(async () => {
    registryServer = createServer((req, res) => {
      const shape = decodeURIComponent(/^\/registry\/([^/]+)\/snapshot\.json$/.exec(req.url ?? '')?.[1] ?? '');
      if (shape in REGISTRY_SHAPES) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(REGISTRY_SHAPES[shape]));
      if (shape === 'reshaped') return res.end(JSON.stringify({ generated_at: registry.generated_at, listings: entries }));
      if (shape === 'renamed-fields') return res.end(JSON.stringify({ entries: entries.map(({ protocols, ...rest }) => ({ ...rest, rails: protocols })) }));
      if (shape === 'down') return res.writeHead(502).end('bad gateway');
      if (shape === 'html') return res.end('<html>moved</html>');
      if (shape === 'hangs') return;
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => registryServer.listen(0, '127.0.0.1', resolve));
    const address = registryServer.address();
    registryOrigin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => {
    registryServer.closeAllConnections();
    registryServer.close();
  });

  const readShape = async (shape: string) => {
    const db = openTestDatabase();
    const summary = await discover(db, { directories: [toDirectoryConfig(`open402=${registryUrl(shape)}`)], now: NOW });
    const ids = listServices(db, { filters: {}, page: { limit: 100, offset: 0 }, sort: 'live' }).services.map((s) => s.id).sort();
    const terms = ids.map((id) => {
      const { name, rails, chains, assets, endpoint } = getServiceInput(db, id)!;
      return { id, name, rails, chains, assets, endpoint };
    });
    return { summary, terms };
  };

  it('is read by default, from the registry its repository publishes', () => {
    expect(DEFAULT_DIRECTORIES).toContainEqual({ kind: 'open402', url: 'https://raw.githubusercontent.com/ArcedeDev/open-402/main/registry/snapshot.json' });
  });

  it.each(Object.keys(REGISTRY_SHAPES))('reads the same six services from the registry %s', async (shape) => {
    const { summary, terms } = await readShape(shape);
    expect(summary.directories).toEqual([{ kind: 'open402', url: registryUrl(shape), endpoints: 6, skipped: 0, pages: 1, error: null }]);
    expect(terms).toEqual((await readShape('as published')).terms);
    expect(terms.find((t) => t.id === 'climate-stripe-dev')).toEqual({
      id: 'climate-stripe-dev', name: 'Stripe Climate', rails: ['mpp', 'x402'], chains: ['base'], assets: ['USD', 'USDC'], endpoint: 'https://climate.stripe.dev/',
    });
  });

  it('refreshes what the seed holds from the registry', async () => {
    const db = openTestDatabase();
    const pinned = 'https://raw.githubusercontent.com/ArcedeDev/open-402/7f4c7111a0b8fc3d6ce60fd17485e9564a9cde19/registry/snapshot.json';
    upsertServices(db, [makeService({ id: 'climate-stripe-dev', endpoint: 'https://climate.stripe.dev/', name: 'Climate (seed)', chains: [], sources: [{ source: 'open402', url: pinned }] })], NOW().toISOString());
    await discover(db, { directories: [toDirectoryConfig(`open402=${registryUrl('as published')}`)], now: NOW });
    expect(getServiceInput(db, 'climate-stripe-dev')).toMatchObject({
      name: 'Stripe Climate', chains: ['base'], sources: [{ source: 'open402', url: registryUrl('as published') }],
    });
  });

  it('fails a registry it cannot read, keeps its listings, and finishes the crawl with the other directories', async () => {
    const db = openTestDatabase();
    const seeded = makeService({ id: 'tako-com', endpoint: 'https://tako.com/', sources: [{ source: 'open402', url: 'https://registry.example/snapshot.json' }] });
    upsertServices(db, [seeded], NOW().toISOString());
    const broken = ['reshaped', 'renamed-fields', 'down', 'html', 'hangs'];
    const agent = createProbeAgent({ allow: parseAllowList(undefined) });
    try {
      const summary = await runCrawl(db, {
        agent,
        directories: [...broken.map((shape) => toDirectoryConfig(`open402=${registryUrl(shape)}`)), toDirectoryConfig(`mpp=${origin}/api/services`)],
        discover: true,
        probe: false,
        timeoutMs: 500,
        now: NOW,
      });
      expect(summary.discovery?.directories.map((d) => d.error)).toEqual([
        'nothing could be read (1 skipped): not the shape of a open402 directory',
        'nothing could be read (8 skipped): not the shape of a open402 directory',
        'answered 502',
        'not JSON',
        'timed out after 0.5 s',
        null,
      ]);
      expect(summary.discovery?.services.found).toBeGreaterThan(1);
      expect(getLastCrawlRun(db)).toMatchObject({ status: 'finished', errors: expect.arrayContaining([expect.stringContaining('answered 502')]) });
    } finally {
      await agent.dispatcher.close();
    }
    expect(getServiceInput(db, 'tako-com')!.sources).toEqual(expect.arrayContaining([{ source: 'open402', url: 'https://registry.example/snapshot.json' }]));
  });
});
