import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listServices } from '../data/service-list.ts';
import { getServiceInput, upsertServices } from '../data/services.ts';
import { makeService, openTestDatabase } from '../data/testing.ts';
import { discover } from './discover.ts';
import { toDirectoryConfig } from './directories.ts';

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
    expect(byUrl['/wrong-shape']).toMatchObject({ endpoints: 0, skipped: 1, error: null });
    expect(byUrl['/slow']?.error).toBe('timed out after 0.5 s');
    expect(summary.services).toEqual({ found: 10, new: 10, updated: 0 });
    const ids = listServices(db, { filters: {}, page: { limit: 100, offset: 0 }, sort: 'live' }).services.map((s) => s.id);
    expect(ids).toContain('api-apex-db-org');
    expect(ids).toContain('blocksearch-dev');
    expect(ids).toContain('mpp-orthogonal-com');
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
