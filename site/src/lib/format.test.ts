import { describe, expect, it } from 'vitest';
import {
  formatDate, formatPercent, formatUsd, formatUtc, isolateText, joinWords, listTemplateParams, plural, shellQuote, toBaseUrl, toPathOrUrl, toSafeHref,
  shortenMiddle, toDisplayName, truncate,
} from './format.ts';

describe('format.ts', () => {
  it.each([
    [0.01, '$0.01'], [0.001, '$0.001'], [0.0245, '$0.0245'], [0.01225, '$0.01225'], [0.1, '$0.10'], [0.5, '$0.50'],
    [1, '$1'], [1.5, '$1.50'], [0, '$0'], [0.0000123, '$0.0000123'], [0.1 + 0.2, '$0.30'], [null, null], [-1, null], [Number.NaN, null],
  ])('formats %s USD as %s', (usd, text) => {
    expect(formatUsd(usd)).toBe(text);
  });

  it('formats times in UTC and dates', () => {
    expect(formatUtc('2026-11-01T12:05:59.999Z')).toBe('2026-11-01 12:05 UTC');
    expect(formatUtc('2026-11-01T14:05:00+02:00')).toBe('2026-11-01 12:05 UTC');
    expect(formatUtc(null)).toBeNull();
    expect(formatUtc('not a date')).toBeNull();
    expect(formatDate('2026-11-01T23:59:00.000Z')).toBe('2026-11-01');
  });

  it('writes counts and lists as prose', () => {
    expect(plural(1, 'check')).toBe('1 check');
    expect(plural(1200, 'check')).toBe('1,200 checks');
    expect(joinWords([])).toBe('');
    expect(joinWords(['base'])).toBe('base');
    expect(joinWords(['a', 'b', 'c'])).toBe('a, b and c');
  });

  it.each([
    ['https://a.example/x', 'https://a.example/x'],
    ['HTTP://A.example', 'http://a.example/'],
    ['  https://a.example/ ', 'https://a.example/'],
    ['javascript:alert(1)', null],
    [' javascript:alert(1)', null],
    ['JAVASCRIPT:alert(1)', null],
    ['java\tscript:alert(1)', null],
    ['data:text/html,<script>', null],
    ['acp://shop.example', null],
    ['/relative', null],
    ['//evil.example', null],
    ['https://', null],
    ['http:/\\evil.example', null],
    [null, null],
    ['https://gemini.mpp.tempo.xyz/:version/files', null],
    ['https://api.example.com/agents/{id}/run', null],
    ['https://api.example.com/agents/%7Bid%7D/run', null],
    ['https://api.example.com/users/:id', null],
    ['https://api.example.com/search?q={query}', null],
    ['https://api.example.com:8443/v1/a:b?at=12:30', 'https://api.example.com:8443/v1/a:b?at=12:30'],
  ])('only http(s) URLs naming one resource become links: %j -> %j', (url, href) => {
    expect(toSafeHref(url)).toBe(href);
  });

  it('finds the parameters of a URL template', () => {
    expect(listTemplateParams('https://gemini.mpp.tempo.xyz/:version/files')).toEqual([':version']);
    expect(listTemplateParams('https://a.example/orgs/:org/agents/{id}/run')).toEqual([':org', '{id}']);
    expect(listTemplateParams('https://a.example/agents/%7Bagent_id%7D')).toEqual(['{agent_id}']);
    expect(listTemplateParams('https://a.example:8443/v1/a:b?at=12:30#x:y')).toEqual([]);
    expect(listTemplateParams('acp://shop.example')).toEqual([]);
    expect(listTemplateParams('https://a.example/:a/:b/:a')).toEqual([':a', ':b']);
  });

  it('shows an endpoint as a path on its host, else in full', () => {
    expect(toBaseUrl('https://a.example:8443/v1?x=1')).toBe('https://a.example:8443');
    expect(toBaseUrl('acp://shop.example')).toBe('acp://shop.example');
    expect(toBaseUrl('not a url')).toBe('not a url');
    expect(toPathOrUrl('https://a.example/v1/x?q=1', 'https://a.example')).toBe('/v1/x?q=1');
    expect(toPathOrUrl('https://b.example/v1', 'https://a.example')).toBe('https://b.example/v1');
    expect(toPathOrUrl('javascript:alert(1)', 'https://a.example')).toBe('javascript:alert(1)');
    expect(toPathOrUrl('https://a.example/agents/{id}/run', 'https://a.example')).toBe('/agents/{id}/run');
    expect(toPathOrUrl('https://A.example/v1', 'https://a.example')).toBe('/v1');
  });

  it('quotes for the shell only what needs it, and quotes quotes', () => {
    expect(shellQuote('https://a.example/v1/pay')).toBe('https://a.example/v1/pay');
    expect(shellQuote('https://a.example/x?a=1&b=2')).toBe("'https://a.example/x?a=1&b=2'");
    expect(shellQuote("https://a.example/'; rm -rf ~; '")).toBe(`'https://a.example/'\\''; rm -rf ~; '\\'''`);
    expect(shellQuote('$(id)')).toBe("'$(id)'");
  });

  it('isolates text where markup cannot', () => {
    expect(isolateText('a\u202Eb')).toBe('\u2068a\u202Eb\u2069');
  });

  it('cuts long text on a word, and takes shares', () => {
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('a long sentence here', 10)).toBe('a long…');
    expect(truncate('x'.repeat(30), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(formatPercent(1, 3)).toBe('33.3 %');
    expect(formatPercent(3, 3)).toBe('100 %');
    expect(formatPercent(0, 0)).toBeNull();
  });

  it('names a service by its host when the directory name is only a slug of it, and shortens in the middle', () => {
    expect(toDisplayName('402bnb', 'https://402bnb.fun/')).toBe('402bnb.fun');
    expect(toDisplayName('api-firecrawl-dev', 'https://api.firecrawl.dev/v1')).toBe('api.firecrawl.dev');
    expect(toDisplayName('127.0.0.1:4321', 'http://127.0.0.1:4321/api/demo')).toBe('127.0.0.1:4321');
    expect(toDisplayName('Firecrawl', 'https://api.firecrawl.dev/v1')).toBe('Firecrawl');
    expect(toDisplayName('Pinata', 'https://402.pinata.cloud/')).toBe('Pinata');
    // A bare protocol word names how a service is paid, not which one: the host, wherever it is served.
    expect(toDisplayName('x402', 'https://api.example.com/v1/x402')).toBe('api.example.com');
    expect(toDisplayName('PAY', 'https://shop.test/checkout')).toBe('shop.test');
    expect(toDisplayName('x402 Weather', 'https://api.example.com/')).toBe('x402 Weather');
    expect(toDisplayName('OpenWeather', 'https://openweather.mpp.example/')).toBe('OpenWeather');
    expect(shortenMiddle('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 13)).toBe('0x8335…A02913');
    expect(shortenMiddle('short', 13)).toBe('short');
  });
});
