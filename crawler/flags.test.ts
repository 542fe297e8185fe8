import { describe, expect, it } from 'vitest';
import { toFlags, type FlagObservation } from './flags.ts';
import { fillUrlTemplate, isUrlTemplate } from './template.ts';
import { isSame402, toSiblingUrl } from './wildcard.ts';

const NOW = new Date('2026-12-01T00:00:00.000Z');
const terms = (usd: number | null, chains = ['base']) => ({ rails: ['x402' as const], chains, assets: ['USDC'], price: { usd, display: null }, offers: [] });
const observed = (overrides: Partial<FlagObservation> = {}): FlagObservation => ({
  template: false, listedPriceUsd: 0.01, terms: terms(0.01), lenient: false, unansweredSince: null, wildcard402: null, held: [], now: NOW, ...overrides,
});

describe('toFlags', () => {
  it.each<[string, Partial<FlagObservation>, string[]]>([
    ['a clean service', {}, []],
    ['a wildcard host', { wildcard402: true }, ['wildcard_402']],
    ['a template', { template: true }, ['template_url']],
    ['over $100 asked', { terms: terms(100.01), listedPriceUsd: 100.01 }, ['extreme_price']],
    ['exactly $100 asked', { terms: terms(100), listedPriceUsd: 100 }, []],
    ['over $100 listed, no challenge read', { terms: null, listedPriceUsd: 5000 }, ['extreme_price']],
    ['asked 11 times the listed price', { terms: terms(0.11) }, ['price_mismatch']],
    ['asked 10 times the listed price', { terms: terms(0.1) }, []],
    ['asked under a tenth of the listed price', { terms: terms(0.0009) }, ['price_mismatch']],
    ['no listed price to compare', { listedPriceUsd: null, terms: terms(50) }, []],
    ['testnets only', { terms: terms(0.01, ['base-sepolia', 'solana-devnet']) }, ['testnet_only']],
    ['a testnet beside a mainnet', { terms: terms(0.01, ['base-sepolia', 'base']) }, []],
    ['a lenient challenge', { lenient: true }, ['challenge_nonstandard']],
    ['no answer for 30 days', { terms: null, unansweredSince: '2026-11-01T00:00:00.000Z' }, ['unreachable_30d']],
    ['no answer for 29 days', { terms: null, unansweredSince: '2026-11-02T00:00:00.000Z' }, []],
    ['held challenge flags while no challenge is read', { terms: null, held: ['testnet_only', 'price_mismatch', 'challenge_nonstandard', 'wildcard_402'] }, ['price_mismatch', 'testnet_only', 'challenge_nonstandard']],
    ['held challenge flags dropped when a clean challenge is read', { held: ['testnet_only', 'price_mismatch', 'challenge_nonstandard'] }, []],
  ])('%s', (_case, overrides, flags) => {
    expect(toFlags(observed(overrides))).toEqual(flags);
  });
});

describe('URL templates', () => {
  it.each([
    ['https://a.example/items/{id}', true],
    ['https://a.example/items/%7Bid%7D', true],
    ['https://a.example/v1/:version/quote', true],
    ['https://a.example/files/*', true],
    ['https://a.example:8443/items/7', false],
  ])('%s is a template: %s', (url, template) => {
    expect(isUrlTemplate(url)).toBe(template);
  });

  it('fills every parameter from the listing example, or gives up', () => {
    expect(fillUrlTemplate('https://a.example/items/%7Bid%7D', { id: 7 })).toBe('https://a.example/items/7');
    expect(fillUrlTemplate('https://a.example/:version/q/{city}', { version: 'v2', city: 'São Paulo' })).toBe('https://a.example/v2/q/S%C3%A3o%20Paulo');
    expect(fillUrlTemplate('https://a.example/:version/q/{city}', { version: 'v2' })).toBeNull();
    expect(fillUrlTemplate('https://a.example/files/*', { '*': 'a' })).toBeNull();
    expect(fillUrlTemplate('https://a.example/items/{id}', undefined)).toBeNull();
  });
});

describe('the wildcard check', () => {
  it('asks a random sibling of the main path, without its query', () => {
    expect(toSiblingUrl('https://a.example/v1/quote?key=secret', 'abc')).toBe('https://a.example/v1/psi-abc');
    expect(toSiblingUrl('https://a.example/', 'abc')).toBe('https://a.example/psi-abc');
    expect(toSiblingUrl('https://a.example/v1/quote')).toMatch(/^https:\/\/a\.example\/v1\/psi-[0-9a-f]{12}$/);
  });

  it('counts only the same 402 as the main endpoint', () => {
    const main = { status_code: 402, detected_rails: ['x402' as const] };
    expect(isSame402(main, { status_code: 402, detected_rails: ['x402'] })).toBe(true);
    expect(isSame402(main, { status_code: 404, detected_rails: [] })).toBe(false);
    expect(isSame402(main, { status_code: 402, detected_rails: ['mpp'] })).toBe(false);
  });
});
