import { describe, expect, it } from 'vitest';
import { makeService } from '../../../data/testing.ts';
import { openFixtureDatabase } from '../../testing.ts';
import { getHomeView } from './home.ts';
import { ServiceListQuery, toServiceQuery } from '../../../domain/list-query.ts';
import { SORTS } from '../../../domain/schemas.ts';
import {
  EMPTY_QUERY, HOME_SORTS, isFilteredQuery, readHomeQuery, toHomeHref, toHomePager, toHomeTitle, toListParams, toStatus, type HomeQuery,
} from './home-query.ts';
import { toHomeRow, toRowPrice } from './home-row.ts';
import { SITE_NAME, toPageTitle } from './site.ts';

describe('home.ts', () => {
  const db = openFixtureDatabase();

  it('shows the whole index first, best first (live, then 30-day uptime), with counts and facet links', () => {
    const view = getHomeView(db, EMPTY_QUERY);
    expect(view.filtered).toBe(false);
    expect(view.stats).toMatchObject({ total: 6, live: 2, probed: 3, dualRail: 1, lastCheck: '2026-11-01 11:59 UTC' });
    expect(view.status).toBe('Showing 1–6 of 6 services');
    expect(view.countsText).toBe('6 services · 2 live · 1 dual-rail');
    expect(view.rows.map((row) => row.id)).toEqual([
      'dual-example-com', 'alpha-example-com', 'down-example-com', 'fresh-example-com', 'many-example-com', 'shop-example',
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
    expect(live.rows.map((r) => r.id)).toEqual(['dual-example-com', 'alpha-example-com']);
    expect(live.status).toBe('Showing 1–2 of 2 services matching');
    const search = getHomeView(db, { ...EMPTY_QUERY, q: 'weather' });
    expect(search.rows.map((r) => r.id)).toEqual(['alpha-example-com']);
    // A search is ranked by default, as the list API ranks it.
    expect(search.sortApplied).toBe('relevance');
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
    const query = readHomeQuery(new URLSearchParams('rail=MPP&live=on&offset=260&q=%20a%20b%20&x=1'));
    expect(query).toEqual({ ...EMPTY_QUERY, q: 'a b', rail: 'mpp', live: true, offset: 250 });
    expect(toHomeHref(query)).toBe('/?q=a+b&rail=mpp&live=true&offset=250');
    expect(readHomeQuery(new URLSearchParams('offset=-5&live=maybe'))).toEqual(EMPTY_QUERY);
    expect(isFilteredQuery(EMPTY_QUERY)).toBe(false);
    expect(isFilteredQuery({ ...EMPTY_QUERY, offset: 100 })).toBe(true);
    expect(toStatus(703, 101, 200, false)).toBe('Showing 101–200 of 703 services');
    expect(toStatus(5, 101, 100, true)).toBe('No services on this page; 5 services match.');
    // Past the counted matches, a search's partial matches (all words but one) are said to be so.
    expect(toStatus(2, 1, 7, true)).toBe('Showing 1–7: 2 services match every word; 5 services here hold all words but one.');
    expect(toStatus(1, 1, 2, true)).toBe('Showing 1–2: 1 service matches every word; 1 service here holds all words but one.');
    expect(toStatus(0, 1, 0, true)).toBe('No services match these filters.');
  });

  it('reads the sort and the newer filters leniently: only values the list API accepts are kept, never an error', () => {
    expect(readHomeQuery(new URLSearchParams('sort=PRICE&max_price_usd=%200.05%20&category=Data&source=MPP.dev'))).toEqual({
      ...EMPTY_QUERY, sort: 'price', max_price_usd: 0.05, category: 'data', source: 'mpp.dev',
    });
    expect(readHomeQuery(new URLSearchParams('max_price_usd=0'))).toEqual({ ...EMPTY_QUERY, max_price_usd: 0 });
    expect(readHomeQuery(new URLSearchParams('max_price_usd=1e-3'))).toEqual({ ...EMPTY_QUERY, max_price_usd: 0.001 });
    for (const junk of ['sort=cheapest', 'sort=', 'source=nowhere', 'source=', 'max_price_usd=-1', 'max_price_usd=abc',
      'max_price_usd=0x10', 'max_price_usd=1e400', 'max_price_usd=Infinity', 'max_price_usd=', 'category=']) {
      expect(readHomeQuery(new URLSearchParams(junk)), junk).toEqual(EMPTY_QUERY);
    }
    // Every value kept is one the API takes: parsing what the script sends never throws.
    for (const junk of ['sort=RELEVANCE&max_price_usd=-0', 'source=ACP&max_price_usd=.5', 'sort=x&source=y&max_price_usd=z']) {
      expect(() => ServiceListQuery.parse(Object.fromEntries(toListParams(readHomeQuery(new URLSearchParams(junk)), 100))), junk).not.toThrow();
    }
    expect(HOME_SORTS.map((sort) => sort.value), 'the orders are the list API\'s').toEqual([...SORTS]);
  });

  it('writes the sort and filters into the URL and reads them back the same; the default order is left out', () => {
    const query: HomeQuery = {
      q: 'weather', rail: 'x402', chain: 'base', asset: 'usdc', category: 'data', source: 'bazaar', max_price_usd: 0.01, live: true, sort: 'price', offset: 100,
    };
    const href = toHomeHref(query);
    expect(href).toBe('/?q=weather&rail=x402&chain=base&asset=usdc&category=data&source=bazaar&max_price_usd=0.01&live=true&sort=price&offset=100');
    expect(readHomeQuery(new URL(href, 'https://index.test').searchParams)).toEqual(query);
    for (const sort of SORTS) {
      const sorted = { ...EMPTY_QUERY, sort };
      expect(readHomeQuery(new URL(toHomeHref(sorted), 'https://index.test').searchParams)).toEqual(sorted);
    }
    expect(toHomeHref({ ...EMPTY_QUERY, sort: 'quality' })).toBe('/');
    expect(toHomeHref({ ...EMPTY_QUERY, sort: 'live' })).toBe('/?sort=live');
    expect(toHomeHref({ ...EMPTY_QUERY, max_price_usd: 0 })).toBe('/?max_price_usd=0');
    expect(isFilteredQuery({ ...EMPTY_QUERY, sort: 'newest' })).toBe(true);
    expect(isFilteredQuery({ ...EMPTY_QUERY, max_price_usd: 0 })).toBe(true);
    expect(toHomePager({ ...EMPTY_QUERY, sort: 'uptime', max_price_usd: 1 }, { total: 250, more: true, shown: 50, sort: 'uptime' })[1]!.href).toBe('/?max_price_usd=1&sort=uptime&offset=50');
    expect(toHomeTitle({ ...EMPTY_QUERY, category: 'data', source: 'mpp.dev', max_price_usd: 0.01, sort: 'price' }, () => undefined))
      .toBe('\u2068data\u2069 · \u2068mpp.dev service directory\u2069 · at most $0.01 per call · cheapest first');
    // What the script asks the API for is what the server render applies.
    const params = toListParams(query, 100);
    expect(params.toString()).toBe('limit=100&offset=100&q=weather&rail=x402&chain=base&asset=usdc&category=data&source=bazaar&max_price_usd=0.01&live=true&sort=price');
    expect(toServiceQuery(ServiceListQuery.parse(Object.fromEntries(params)))).toEqual({
      filters: { q: 'weather', rail: 'x402', chain: 'base', asset: 'usdc', category: 'data', source: 'bazaar', max_price_usd: 0.01, live: true },
      page: { limit: 100, offset: 100 },
      sort: 'price',
    });
    expect(toListParams(EMPTY_QUERY, 100).toString()).toBe('limit=100&offset=0');
  });

  it('lists in the order asked and filters by price, category and directory, as the list API does', () => {
    const ids = (query: Partial<HomeQuery>) => getHomeView(db, { ...EMPTY_QUERY, ...query }).rows.map((row) => row.id);
    // Cheapest endpoint first (alpha lists a free one), unknown prices last, ties by id.
    expect(ids({ sort: 'price' })).toEqual([
      'alpha-example-com', 'many-example-com', 'dual-example-com', 'fresh-example-com', 'down-example-com', 'shop-example',
    ]);
    expect(ids({ sort: 'uptime' })).toEqual([
      'dual-example-com', 'alpha-example-com', 'down-example-com', 'fresh-example-com', 'many-example-com', 'shop-example',
    ]);
    expect(ids({ sort: 'latency' }).slice(0, 3)).toEqual(['down-example-com', 'dual-example-com', 'alpha-example-com']);
    expect(ids({ sort: 'price', max_price_usd: 0.01 })).toEqual(['alpha-example-com', 'many-example-com', 'dual-example-com', 'fresh-example-com']);
    // A service qualifies by any endpoint at or under the price, not only its main one.
    expect(ids({ max_price_usd: 0.005 })).toEqual(['alpha-example-com', 'many-example-com']);
    expect(ids({ max_price_usd: 0 })).toEqual(['alpha-example-com']);
    expect(ids(readHomeQuery(new URLSearchParams('category=COMMERCE')))).toEqual(['shop-example']);
    expect(ids({ source: 'mpp.dev' })).toEqual(['many-example-com']);
    expect(ids({ source: 'bazaar', sort: 'price' })).toEqual(['alpha-example-com', 'dual-example-com', 'fresh-example-com', 'down-example-com']);

    const view = getHomeView(db, { ...EMPTY_QUERY, sort: 'price', max_price_usd: 0.01 });
    expect(view.path).toBe('/?max_price_usd=0.01&sort=price');
    expect(view.sortApplied).toBe('price');
    expect(view.status).toBe('Showing 1–4 of 4 services matching');
    expect(view.title).toBe('at most $0.01 per call · cheapest first');
    expect(view.rails.find((o) => o.value === 'mpp')!.href, 'facet links keep the order and the price').toBe('/?rail=mpp&max_price_usd=0.01&sort=price');
    expect(view.sorts.map((sort) => sort.label)).toEqual([
      'Best first', 'Live first', 'Cheapest', 'Highest uptime (30 d)', 'Fastest (30 d median)', 'Newest', 'Best match (with a search)',
    ]);
    expect(view.categories.map((o) => [o.value, o.count])).toEqual([['data', 5], ['commerce', 1]]);
    expect(view.sources.map((o) => [o.label, o.count])).toEqual([
      ['x402 Bazaar (facilitator discovery)', 4], ['ACP merchant announcement', 1], ['mpp.dev service directory', 1], ['Open 402 Directory', 1],
    ]);
    // Best match needs words to rank by: without a search the list is read best first, and the choice is kept.
    const relevance = getHomeView(db, { ...EMPTY_QUERY, sort: 'relevance' });
    expect(relevance.sortApplied).toBe('quality');
    expect(relevance.query.sort).toBe('relevance');
    expect(relevance.rows.map((row) => row.id)).toEqual(getHomeView(db, EMPTY_QUERY).rows.map((row) => row.id));
  });

  it('offers only directory kinds the list API accepts, whatever a directory stored', () => {
    const hostile = openFixtureDatabase([makeService({ id: 'odd-example-com', sources: [{ source: 'Elsewhere<b>', url: null }] })]);
    expect(getHomeView(hostile, EMPTY_QUERY).sources.map((o) => o.value)).toEqual(['bazaar', 'acp', 'mpp.dev', 'open402']);
  });

  it('pages with Previous and Next, and past the last page offers the last and the first page, never an empty one', () => {
    expect(toHomePager({ ...EMPTY_QUERY, rail: 'x402', offset: 50 }, { total: 704, more: true, shown: 50, sort: 'quality' })).toEqual([
      { text: '← Previous', href: '/?rail=x402', rel: 'prev' },
      { text: 'Page 2 of 15', href: null, rel: null },
      { text: 'Next →', href: '/?rail=x402&offset=100', rel: 'next' },
    ]);
    expect(toHomePager({ ...EMPTY_QUERY, offset: 700 }, { total: 704, more: false, shown: 4, sort: 'quality' })).toEqual([
      { text: '← Previous', href: '/?offset=650', rel: 'prev' },
      { text: 'Page 15 of 15', href: null, rel: null },
    ]);
    expect(toHomePager({ ...EMPTY_QUERY, offset: 10_000 }, { total: 704, more: false, shown: 0, sort: 'quality' })).toEqual([
      { text: 'First page', href: '/', rel: null },
      { text: 'Last page (15)', href: '/?offset=700', rel: null },
      { text: 'No page 201: the last is page 15', href: null, rel: null },
    ]);
    expect(toHomePager({ ...EMPTY_QUERY, q: 'x', offset: 150 }, { total: 0, more: false, shown: 0, sort: 'quality' })).toEqual([
      { text: 'First page', href: '/?q=x', rel: null },
      { text: 'No page 4: the last is page 1', href: null, rel: null },
    ]);
    const past = getHomeView(db, { ...EMPTY_QUERY, offset: 200 });
    expect(past.status).toBe('No services on this page; 6 services match.');
    expect(past.pager).toEqual([
      { text: 'First page', href: '/', rel: null },
      { text: 'No page 5: the last is page 1', href: null, rel: null },
    ]);
  });

  it('pages a search by what the list answers, past its counted matches into the partial ones', () => {
    // One service holds both words; sixty hold "wine" alone: partial matches, listed after it and not counted.
    const wines = openFixtureDatabase([
      makeService({ id: 'shop-wine-test', name: 'Wine shop', description: 'Buy wine online' }),
      ...Array.from({ length: 60 }, (_, i) => makeService({ id: `cellar-${String(i).padStart(2, '0')}-test`, name: `Cellar ${i}`, description: 'Rare wines' })),
    ]);
    const first = getHomeView(wines, { ...EMPTY_QUERY, q: 'buy wine' });
    expect(first.counts.total).toBe(1);
    expect(first.rows).toHaveLength(50);
    expect(first.status).toBe('Showing 1–50: 1 service matches every word; 49 services here hold all words but one.');
    expect(first.pager).toEqual([
      { text: 'Page 1', href: null, rel: null },
      { text: 'Next →', href: '/?q=buy+wine&offset=50', rel: 'next' },
    ]);
    const second = getHomeView(wines, { ...EMPTY_QUERY, q: 'buy wine', offset: 50 });
    expect(second.rows.map((row) => row.id)).toEqual(Array.from({ length: 11 }, (_, i) => `cellar-${49 + i}-test`));
    expect(second.pager).toEqual([
      { text: '← Previous', href: '/?q=buy+wine', rel: 'prev' },
      { text: 'Page 2 of 2', href: null, rel: null },
    ]);
    expect(getHomeView(wines, { ...EMPTY_QUERY, q: 'buy wine', offset: 100 }).pager).toEqual([
      { text: 'First page', href: '/?q=buy+wine', rel: null },
      { text: 'No page 3: the results end before it', href: null, rel: null },
    ]);
    // Every other order lists the counted matches alone.
    expect(getHomeView(wines, { ...EMPTY_QUERY, q: 'buy wine', sort: 'price' }).pager).toEqual([{ text: 'Page 1 of 1', href: null, rel: null }]);
  });

  it('titles a searched or filtered page by its search and filters, their text isolated', () => {
    expect(getHomeView(db, EMPTY_QUERY).title).toBe(SITE_NAME);
    expect(toPageTitle(getHomeView(db, EMPTY_QUERY).title)).toBe('Payable-Service Index');
    const view = getHomeView(db, { ...EMPTY_QUERY, q: 'weather', rail: 'mpp', chain: 'eip155:8453', asset: 'pathusd', live: true, offset: 50 });
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
      uptime_30d: null, checks_30d: 0, median_latency_ms_30d: null, flags: [], owner_verified: false, reason: null,
      price_range: { min_usd: null, max_usd: null }, endpoint_count: 1,
    });
    expect(row).toMatchObject({ href: '/services/a', result: { text: 'No challenge detected' }, price: 'No price listed', host: 'https://a.example', uptime: null, latency: null });
    expect(row.chips.map((chip) => chip.text)).toEqual(['x402', 'MPP', 'base', 'USDC']);
    expect(row.description!.length).toBeLessThanOrEqual(160);
    expect(row.descriptionTitle).toBe('x'.repeat(500));
    const checked = toHomeRow({
      id: 'b', name: 'B', category: null, description: null, rails: ['x402'], chains: [], assets: [],
      price: { usd: 0.01, display: null }, endpoint: 'https://b.example/pay', facilitator: null, live: true, last_seen_live: null,
      first_indexed: '2026-11-01T00:00:00.000Z', sources: [],
      uptime_30d: 0.967, checks_30d: 30, median_latency_ms_30d: 1_432, flags: [], owner_verified: false, reason: null,
      price_range: { min_usd: null, max_usd: null }, endpoint_count: 1,
    });
    expect(checked).toMatchObject({ uptime: { text: '96.7 %', ratio: 0.967, low: false }, latency: '1,432 ms', descriptionTitle: null });
  });

  it("shows the price the cheapest order reads: the cheapest endpoint's, from it when the endpoints differ", () => {
    const price = (usd: number | null, min: number | null, max: number | null) =>
      toRowPrice({ price: { usd, display: null }, price_range: { min_usd: min, max_usd: max } });
    expect(price(0.05, 0.001, 0.05)).toEqual({ price: 'from $0.001', priceTitle: '$0.001 to $0.05 across its endpoints' });
    expect(price(0.01, 0.01, 0.01)).toEqual({ price: '$0.01', priceTitle: null });
    expect(price(0.01, null, null)).toEqual({ price: '$0.01', priceTitle: null });
    expect(price(null, null, null)).toEqual({ price: 'No price listed', priceTitle: null });
    const view = getHomeView(db, { ...EMPTY_QUERY, sort: 'price' });
    expect(view.rows.slice(0, 2).map((row) => [row.name, row.price])).toEqual([['Alpha Weather', 'from $0'], ['Many Tools Gateway', 'from $0.001']]);
  });

  it('shortens long values in a row and keeps them whole in a title; a slug of the host reads as the host', () => {
    const address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const row = toHomeRow({
      id: '402bnb-fun', name: '402bnb', category: 'tools', description: null, rails: ['x402'], chains: ['base'], assets: [address],
      price: { usd: 0.01, display: null }, endpoint: 'https://402bnb.fun/', facilitator: null, live: null, last_seen_live: null,
      first_indexed: '2026-11-01T00:00:00.000Z', sources: [],
      uptime_30d: 0.2, checks_30d: 5, median_latency_ms_30d: null, flags: [], owner_verified: false, reason: null,
      price_range: { min_usd: null, max_usd: null }, endpoint_count: 1,
    });
    expect(row.name).toBe('402bnb.fun');
    expect(row.chips).toContainEqual({ kind: 'asset', text: '0x83358…A02913', title: address });
    expect(row.chips.at(-1)).toEqual({ kind: 'category', text: 'tools', title: null });
    expect(row.uptime).toMatchObject({ text: '20.0 %', low: true });
  });
});
