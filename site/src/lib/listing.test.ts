import { describe, expect, it } from 'vitest';
import { recordEndpointChecks } from '../../../data/endpoint-checks.ts';
import { recordProbe } from '../../../data/probes.ts';
import { makeService } from '../../../data/testing.ts';
import { FIXTURE_NOW, makeProbes, openFixtureDatabase, SITE_URL } from '../../testing.ts';
import { ENDPOINTS_PER_PAGE, getListingView, toCurl, toEndpointPagePath } from './listing.ts';

const options = { siteUrl: SITE_URL, now: FIXTURE_NOW };

describe('listing.ts', () => {
  const db = openFixtureDatabase();

  it('shapes every element of a checked, live listing', () => {
    const view = getListingView(db, 'alpha-example-com', 1, options)!;
    expect(view).toMatchObject({
      name: 'Alpha Weather',
      description: 'Current weather for any city, paid per call.',
      result: { kind: 'ok', text: 'Challenge detected' },
      price: '$0.01',
      priceDisplay: '$0.01 / call',
      checksText: '18 of the last 20 checks detected a challenge',
      checks: { detected: 18, total: 20 },
      lastChecked: '2026-11-01 11:59 UTC',
      firstIndexed: '2026-09-22',
      endpointCountText: '3 endpoints',
      directories: ['x402 Bazaar (facilitator discovery)', 'Open 402 Directory'],
      baseUrl: { text: 'https://alpha.example.com', href: 'https://alpha.example.com/' },
      apiPath: '/api/v1/services/alpha-example-com',
      apiUrl: 'https://index.test/api/v1/services/alpha-example-com',
      rails: 'x402',
      chains: 'base',
      assets: 'USDC',
      facilitator: { text: 'https://x402.org/facilitator', href: 'https://x402.org/facilitator' },
      lastReason: null,
      unprobeable: false,
    });
    expect(view.medianMs).toBeGreaterThan(100);
    expect(view.chart?.summary).toContain(`median ${view.medianMs} ms`);
    expect(view.curl).toEqual({
      command: 'curl -i https://alpha.example.com/v1/weather',
      comment: '# Expect HTTP 402 Payment Required with an x402 payment challenge; pay with an x402 client in USDC on base.',
      note: null,
    });
    expect(view.summary).toMatch(/^on the last check, 2026-11-01 11:59 UTC \(HTTP 402, \d+ ms\)\.$/);
    expect(view.recentChecks).toHaveLength(20);
    expect(view.recentChecks[0]).toMatchObject({ time: '2026-11-01 11:59 UTC', result: { text: 'Challenge detected' }, status: '402', reason: '' });
    const miss = view.recentChecks.find((check) => check.result.kind === 'bad')!;
    expect(miss).toMatchObject({ status: '404', reason: 'answered HTTP 404 without a payment challenge' });
    expect(view.uptime.map((u) => [u.label, u.percent])).toEqual([['24 h', '91.7 %'], ['7 d', '90.0 %'], ['30 d', '90.0 %']]);
    expect(view.uptime[0]!.detail).toBe('22 of 24 checks detected a challenge');
    expect(view.chart?.dots).toHaveLength(20);
    expect(view.dailyChart).toBeNull();
  });

  it('shows endpoint rows as paths on the host, full URLs elsewhere, dashes and "No price listed"', () => {
    const rows = getListingView(db, 'alpha-example-com', 1, options)!.endpoints.rows;
    expect(rows).toMatchObject([
      { method: 'GET', target: { text: '/v1/weather', href: 'https://alpha.example.com/v1/weather' }, price: '$0.01', description: 'Weather now', mainLabel: 'main, checked' },
      { method: 'POST', target: { text: '/v1/forecast', href: 'https://alpha.example.com/v1/forecast' }, price: '$0', description: '—', mainLabel: null },
      { method: '—', target: { text: 'https://cdn.other.example/alpha/history', href: 'https://cdn.other.example/alpha/history' }, price: 'No price listed', description: 'History, hosted elsewhere', mainLabel: null },
    ]);
    // The main endpoint's last check is its last probe; the others are not checked yet.
    expect(rows[0]!.check).toMatchObject({ result: { text: 'Challenge detected' }, iso: '2026-11-01T11:59:00.000Z' });
    expect(rows[0]!.check.detail).toMatch(/^2026-11-01 11:59 UTC · HTTP 402 · \d+ ms$/);
    expect(rows[1]!.check).toEqual({ result: { kind: 'none', text: 'Not checked yet' }, detail: 'Due with a coming probe pass', reason: null, iso: null });
  });

  it('shows the daily check of every other endpoint, with the reason when it found no challenge', () => {
    recordEndpointChecks(db, [{
      service_id: 'alpha-example-com', method: 'POST', url: 'https://alpha.example.com/v1/forecast', checked_at: '2026-11-01T06:00:00.000Z',
      ok: false, status_code: 404, latency_ms: 31, reason: 'answered 404',
    }]);
    const rows = getListingView(db, 'alpha-example-com', 1, options)!.endpoints.rows;
    expect(rows[1]!.check).toEqual({ result: { kind: 'bad', text: 'No challenge detected' }, detail: '2026-11-01 06:00 UTC · HTTP 404 · 31 ms', reason: 'answered 404', iso: '2026-11-01T06:00:00.000Z' });
  });

  it('says a failing service failed, with the reason of its last check', () => {
    const view = getListingView(db, 'down-example-com', 1, options)!;
    expect(view.result).toEqual({ kind: 'bad', text: 'No challenge detected' });
    expect(view.lastReason).toBe('timed out after 10 s');
    expect(view.checksText).toBe('3 of the last 6 checks detected a challenge');
    expect(view.recentChecks[0]).toMatchObject({ status: '—', ms: '—', reason: 'timed out after 10 s' });
    expect(view.price).toBeNull();
    expect(view.summary).toBe('on the last check, 2026-11-01 11:59 UTC: timed out after 10 s');
  });

  it("says 'Not checked yet' before the first check", () => {
    const view = getListingView(db, 'fresh-example-com', 1, options)!;
    expect(view).toMatchObject({
      result: { kind: 'none', text: 'Not checked yet' }, checksText: null, medianMs: null, lastChecked: null, recentChecks: [], chart: null,
    });
    expect(view.uptime.every((window) => window.percent === 'No checks')).toBe(true);
    expect(view.curl?.command).toBe('curl -i https://fresh.example.com/scrape');
  });

  it('gives an acp:// service no sample request and no link', () => {
    const view = getListingView(db, 'shop-example', 1, options)!;
    expect(view).toMatchObject({ unprobeable: true, curl: null, baseUrl: { text: 'acp://shop.example', href: null }, rails: 'ACP', chains: 'None listed' });
    expect(view.noCurlReason).toContain('ACP merchant');
    expect(view.endpoints.rows[0]).toMatchObject({ method: '—', target: { text: 'acp://shop.example', href: null }, mainLabel: 'main' });
    expect(view.summary).toContain('Never checked');
    expect(view.notChecked).toContain('ACP merchant');
  });

  it('says an ACP merchant prices at checkout and settles there, never that a challenge states the amount', () => {
    const shop = getListingView(db, 'shop-example', 1, options)!;
    expect(shop.noPriceAnswer).toBe('No price listed. An ACP merchant sets the price at checkout inside the agent platform, and the index records none.');
    expect(shop.checkoutTerms).toBe('settled at checkout; no chain or asset listed');
    const down = getListingView(db, 'down-example-com', 1, options)!;
    expect(down.noPriceAnswer).toBe('No price listed. The challenge states the amount when you call the endpoint.');
    expect(down.checkoutTerms).toBeNull();
    expect(getListingView(db, 'alpha-example-com', 1, options)!.checkoutTerms).toBeNull();
  });

  it('takes the median response over answered checks only, the chart stating the same figure', () => {
    const slow = openFixtureDatabase([makeService({ id: 'slow-example-com', endpoint: 'https://slow.example.com/pay' }),
      makeService({ id: 'mute-example-com', endpoint: 'https://mute.example.com/pay' })]);
    const timedOut = { ok: false, status_code: null, latency_ms: 2801, reason: 'timed out after 2.8 s' };
    for (const probe of makeProbes('slow-example-com', 6, (k) => (k % 3 === 0 ? timedOut : { ok: true, latency_ms: 100 + k }))) recordProbe(slow, probe);
    for (const probe of makeProbes('mute-example-com', 3, () => timedOut)) recordProbe(slow, probe);
    const view = getListingView(slow, 'slow-example-com', 1, options)!;
    expect(view).toMatchObject({ medianMs: 103, medianText: '103 ms', medianOver: 'over the last 4 answered checks' });
    expect(view.chart?.summary).toBe('Response time of the 4 answered of the last 6 checks: median 103 ms, fastest 101 ms, slowest 105 ms; 2 without a challenge (marked red).');
    const mute = getListingView(slow, 'mute-example-com', 1, options)!;
    expect(mute).toMatchObject({ medianMs: null, medianText: 'No answer', medianOver: 'none of the last 3 checks got an HTTP answer', chart: null });
    expect(getListingView(slow, 'fresh-example-com', 1, options)).toMatchObject({ medianMs: null, medianText: '—', medianOver: null });
  });

  it('pages 200 endpoints 50 at a time, with every page reachable', () => {
    const first = getListingView(db, 'many-example-com', 1, options)!.endpoints;
    expect(ENDPOINTS_PER_PAGE).toBe(50);
    expect(first).toMatchObject({ total: 200, page: 1, pages: 4, showing: 'Showing 1–50 of 200 endpoints', prevHref: null, nextHref: '/services/many-example-com/endpoints/2' });
    expect(first.rows).toHaveLength(50);
    expect(first.links.map((link) => link.href)).toEqual([
      '/services/many-example-com', '/services/many-example-com/endpoints/2', '/services/many-example-com/endpoints/3', '/services/many-example-com/endpoints/4',
    ]);
    const last = getListingView(db, 'many-example-com', 4, options)!.endpoints;
    expect(last).toMatchObject({ showing: 'Showing 151–200 of 200 endpoints', prevHref: '/services/many-example-com/endpoints/3', nextHref: null });
    expect(last.rows[0]!.target.text).toBe('/v1/tool-151');
    expect(getListingView(db, 'many-example-com', 5, options)).toBeNull();
    expect(getListingView(db, 'many-example-com', 0, options)).toBeNull();
    expect(getListingView(db, 'no-such-service', 1, options)).toBeNull();
    expect(toEndpointPagePath('x', 1)).toBe('/services/x');
  });

  it('names both clients for a dual-rail service and the method of a POST endpoint', () => {
    expect(toCurl({ endpoint: 'https://d.example/pay', rails: ['mpp', 'x402'], chains: ['base', 'tempo'], assets: ['USDC'] }).comment)
      .toBe('# Expect HTTP 402 Payment Required with an x402 challenge (PAYMENT-REQUIRED) and an MPP challenge (WWW-Authenticate: Payment); pay with an x402 or MPP client in USDC on base and tempo.');
    const post = toCurl({ endpoint: 'https://d.example/pay?a=1&b=2', rails: ['mpp'], chains: [], assets: [] }, 'post');
    expect(post.command).toBe("curl -i 'https://d.example/pay?a=1&b=2' -X POST");
    expect(post.comment).toContain('pay with an MPP client in the asset it names.');
  });

  it('uses the daily roll-ups for long windows when they hold more checks than the probes kept', () => {
    const rolled = openFixtureDatabase();
    rolled.prepare(`INSERT INTO probe_days VALUES ('alpha-example-com', '2026-10-10', 96, 48, 120), ('alpha-example-com', '2026-10-11', 96, 96, 140)`).run();
    const view = getListingView(rolled, 'alpha-example-com', 1, options)!;
    expect(view.uptime.map((u) => u.percent)).toEqual(['91.7 %', '90.0 %', '75.0 %']);
    expect(view.dailyChart?.dots).toHaveLength(2);
  });

  it('shows a templated endpoint URL as text, not a link, and says the sample request needs its parameters filled in', () => {
    const templated = openFixtureDatabase([makeService({
      id: 'gemini-example-com',
      endpoint: 'https://gemini.example.com/:version/files',
      endpoints: [
        { url: 'https://gemini.example.com/:version/files', method: 'GET', description: null, price: { usd: null, display: null }, rails: ['mpp'], chains: [], assets: [] },
        { url: 'https://gemini.example.com/agents/{id}/run', method: 'POST', description: null, price: { usd: null, display: null }, rails: ['mpp'], chains: [], assets: [] },
        { url: 'https://gemini.example.com/v1/models', method: 'GET', description: null, price: { usd: null, display: null }, rails: ['mpp'], chains: [], assets: [] },
      ],
    })]);
    const view = getListingView(templated, 'gemini-example-com', 1, options)!;
    expect(view.endpoints.rows.map((row) => row.target)).toEqual([
      { text: '/:version/files', href: null },
      { text: '/agents/{id}/run', href: null },
      { text: '/v1/models', href: 'https://gemini.example.com/v1/models' },
    ]);
    expect(view.curl).toMatchObject({
      command: 'curl -i https://gemini.example.com/:version/files',
      note: '# A URL template, not runnable as is: replace :version with a real value first.',
    });
    expect(view.mainEndpoint.href).toBeNull();
  });

  it('marks as main only the row of the main URL with the method the checks send', () => {
    const twice = openFixtureDatabase([makeService({
      id: 'twice-example-com',
      endpoint: 'https://twice.example.com/run',
      endpoints: [
        { url: 'https://twice.example.com/run', method: 'GET', description: 'read', price: { usd: null, display: null }, rails: ['x402'], chains: [], assets: [] },
        { url: 'https://twice.example.com/run', method: 'POST', description: 'write', price: { usd: null, display: null }, rails: ['x402'], chains: [], assets: [] },
      ],
    })]);
    const mainRows = () => getListingView(twice, 'twice-example-com', 1, options)!.endpoints.rows.map((row) => [row.method, row.mainLabel]);
    // Before the first check: the first row listing the main URL, the one the crawler probes.
    expect(mainRows()).toEqual([['GET', 'main, checked'], ['POST', null]]);
    for (const probe of makeProbes('twice-example-com', 2, () => ({ ok: true, method: 'POST' }))) recordProbe(twice, probe);
    expect(mainRows()).toEqual([['GET', null], ['POST', 'main, checked']]);
    expect(getListingView(twice, 'twice-example-com', 1, options)!.curl?.command).toBe('curl -i https://twice.example.com/run -X POST');
  });
});
