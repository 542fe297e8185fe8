import { describe, expect, it } from 'vitest';
import { openFixtureDatabase } from '../../testing.ts';
import { getHomeView } from './home.ts';
import { EMPTY_QUERY, isFilteredQuery, readHomeQuery, toHomeHref, toHomePager, toHomeTitle, toStatus } from './home-query.ts';
import { toHomeRow } from './home-row.ts';
import { SITE_NAME, toPageTitle } from './site.ts';

describe('home.ts', () => {
  const db = openFixtureDatabase();

  it('shows the whole index first, live first, with counts and facet links', () => {
    const view = getHomeView(db, EMPTY_QUERY);
    expect(view.filtered).toBe(false);
    expect(view.stats).toMatchObject({ total: 6, live: 2, probed: 3, dualRail: 1, lastCheck: '2026-11-01 11:59 UTC' });
    expect(view.status).toBe('Showing 1–6 of 6 services');
    expect(view.countsText).toBe('6 services · 2 live · 1 dual-rail');
    expect(view.rows.map((row) => row.id)).toEqual([
      'alpha-example-com', 'dual-example-com', 'down-example-com', 'fresh-example-com', 'many-example-com', 'shop-example',
    ]);
    expect(view.rails.map((o) => [o.label, o.count, o.href])).toEqual([
      ['x402', 4, '/?rail=x402'], ['MPP', 2, '/?rail=mpp'], ['ACP', 1, '/?rail=acp'],
    ]);
    expect(view.assets.map((o) => o.label)).toEqual(['USDC', 'pathUSD']);
    expect(view.pager).toEqual([{ text: 'Page 1 of 1', href: null, rel: null }]);
  });

  it('filters like the list API: facets combine, chains by CAIP-2 id, live, free text', () => {
    expect(getHomeView(db, { ...EMPTY_QUERY, rail: 'mpp', chain: 'eip155:8453' }).rows.map((r) => r.id)).toEqual(['dual-example-com']);
    const live = getHomeView(db, { ...EMPTY_QUERY, live: true });
    expect(live.rows.map((r) => r.id)).toEqual(['alpha-example-com', 'dual-example-com']);
    expect(live.status).toBe('Showing 1–2 of 2 services matching');
    const search = getHomeView(db, { ...EMPTY_QUERY, q: 'weather' });
    expect(search.rows.map((r) => r.id)).toEqual(['alpha-example-com']);
    const none = getHomeView(db, { ...EMPTY_QUERY, asset: 'doge' });
    expect(none.status).toBe('No services match these filters.');
    expect(none.rows).toEqual([]);
  });

  it('marks the selected facet and links it to its removal, keeping the other filters', () => {
    const view = getHomeView(db, { ...EMPTY_QUERY, rail: 'mpp', live: true });
    const mpp = view.rails.find((o) => o.value === 'mpp')!;
    expect(mpp).toMatchObject({ selected: true, href: '/?live=true' });
    expect(view.rails.find((o) => o.value === 'x402')!.href).toBe('/?rail=x402&live=true');
    expect(view.chains.find((o) => o.value === 'tempo')!.href).toBe('/?rail=mpp&chain=tempo&live=true');
  });

  it('reads a query from a URL, ignoring junk, and writes it back', () => {
    const query = readHomeQuery(new URLSearchParams('rail=MPP&live=on&offset=250&q=%20a%20b%20&x=1'));
    expect(query).toEqual({ q: 'a b', rail: 'mpp', chain: '', asset: '', live: true, offset: 200 });
    expect(toHomeHref(query)).toBe('/?q=a+b&rail=mpp&live=true&offset=200');
    expect(readHomeQuery(new URLSearchParams('offset=-5&live=maybe'))).toEqual(EMPTY_QUERY);
    expect(isFilteredQuery(EMPTY_QUERY)).toBe(false);
    expect(isFilteredQuery({ ...EMPTY_QUERY, offset: 100 })).toBe(true);
    expect(toStatus(703, 101, 200, false)).toBe('Showing 101–200 of 703 services');
    expect(toStatus(5, 101, 100, true)).toBe('No services on this page; 5 services match.');
  });

  it('pages with Previous and Next, and past the last page offers the last and the first page, never an empty one', () => {
    expect(toHomePager({ ...EMPTY_QUERY, rail: 'x402', offset: 100 }, 704)).toEqual([
      { text: '← Previous', href: '/?rail=x402', rel: 'prev' },
      { text: 'Page 2 of 8', href: null, rel: null },
      { text: 'Next →', href: '/?rail=x402&offset=200', rel: 'next' },
    ]);
    expect(toHomePager({ ...EMPTY_QUERY, offset: 700 }, 704)).toEqual([
      { text: '← Previous', href: '/?offset=600', rel: 'prev' },
      { text: 'Page 8 of 8', href: null, rel: null },
    ]);
    expect(toHomePager({ ...EMPTY_QUERY, offset: 10_000 }, 704)).toEqual([
      { text: 'First page', href: '/', rel: null },
      { text: 'Last page (8)', href: '/?offset=700', rel: null },
      { text: 'No page 101: the last is page 8', href: null, rel: null },
    ]);
    expect(toHomePager({ ...EMPTY_QUERY, q: 'x', offset: 300 }, 0)).toEqual([
      { text: 'First page', href: '/?q=x', rel: null },
      { text: 'No page 4: the last is page 1', href: null, rel: null },
    ]);
    const past = getHomeView(db, { ...EMPTY_QUERY, offset: 200 });
    expect(past.status).toBe('No services on this page; 6 services match.');
    expect(past.pager).toEqual([
      { text: 'First page', href: '/', rel: null },
      { text: 'No page 3: the last is page 1', href: null, rel: null },
    ]);
  });

  it('titles a searched or filtered page by its search and filters, their text isolated', () => {
    expect(getHomeView(db, EMPTY_QUERY).title).toBe(SITE_NAME);
    expect(toPageTitle(getHomeView(db, EMPTY_QUERY).title)).toBe('Payable-Service Index');
    const view = getHomeView(db, { q: 'weather', rail: 'mpp', chain: 'eip155:8453', asset: 'pathusd', live: true, offset: 100 });
    expect(toPageTitle(view.title))
      .toBe('\u2068weather\u2069 · \u2068MPP\u2069 · \u2068base\u2069 · \u2068pathUSD\u2069 · challenge detected · page 2 · Payable-Service Index');
    expect(toHomeTitle({ ...EMPTY_QUERY, rail: '\u202Ex', asset: 'doge' }, () => undefined)).toBe('\u2068\u202Ex\u2069 · \u2068doge\u2069');
  });

  it('treats empty form fields as absent: the same results, and a canonical path and links without empty parameters', () => {
    const view = getHomeView(db, readHomeQuery(new URLSearchParams('q=weather&rail=x402&chain=&asset=usdc&live=&offset=100')));
    const clean = getHomeView(db, { ...EMPTY_QUERY, q: 'weather', rail: 'x402', asset: 'usdc', offset: 100 });
    expect(view.counts).toEqual(clean.counts);
    expect(view.path).toBe('/?q=weather&rail=x402&asset=usdc&offset=100');
    expect(view.pager[0]).toEqual({ text: 'First page', href: '/?q=weather&rail=x402&asset=usdc', rel: null });
    const hrefs = [view.path, ...view.pager.map((item) => item.href), ...[...view.rails, ...view.chains, ...view.assets].map((option) => option.href)];
    expect(hrefs.filter((href) => href !== null && /=(&|$)/.test(href))).toEqual([]);
    expect(getHomeView(db, EMPTY_QUERY).path).toBe('/');
  });

  it('makes one row of a service the same way for the server and the client script', () => {
    const row = toHomeRow({
      id: 'a', name: 'A', category: null, description: 'x'.repeat(500), rails: ['x402', 'mpp'], chains: ['base'], assets: ['USDC'],
      price: { usd: null, display: null }, endpoint: 'https://a.example/pay', facilitator: null, live: false, last_seen_live: null,
      first_indexed: '2026-11-01T00:00:00.000Z', sources: [],
    });
    expect(row).toMatchObject({ href: '/services/a', result: { text: 'No challenge detected' }, price: 'No price listed', meta: ['x402 + MPP', 'base', 'USDC'], host: 'https://a.example' });
    expect(row.description!.length).toBeLessThanOrEqual(220);
  });
});
