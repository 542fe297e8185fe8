import { toCaip2, toChainName } from '../domain/chains.ts';
import { describe, expect, it } from 'vitest';
import {
  FREE_PRICE,
  UNKNOWN_PRICE,
  getAssetDecimals,
  isUsdAsset,
  toAssetSymbol,
  toPrice,
  toSortedUnique,
} from './normalize.ts';

describe('toChainName', () => {
  it.each([
    ['eip155:8453', 'base'],
    ['eip155:84532', 'base-sepolia'],
    ['EIP155:137', 'polygon'],
    ['eip155:42161', 'arbitrum'],
    ['eip155:10', 'optimism'],
    ['eip155:1', 'ethereum'],
    ['eip155:56', 'bnb'],
    ['eip155:43114', 'avalanche'],
    ['eip155:4217', 'tempo'],
    ['eip155:1329', 'sei'],
    ['eip155:4689', 'iotex'],
    ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'solana'],
    ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', 'solana-devnet'],
    ['solana:mainnet', 'solana'],
    ['solana:devnet', 'solana-devnet'],
    ['base', 'base'],
    ['base-sepolia', 'base-sepolia'],
    ['base_sepolia', 'base-sepolia'],
    ['solana_devnet', 'solana-devnet'],
    ['avalanche_fuji', 'avalanche-fuji'],
    ['Base', 'base'],
    ['Base Sepolia', 'base-sepolia'],
    ['Solana', 'solana'],
    ['Tempo', 'tempo'],
    ['Arbitrum One', 'arbitrum'],
    ['BNB Chain', 'bnb'],
    [' Polygon ', 'polygon'],
    ['eip155:999999', 'eip155:999999'],
    ['xrpl:0', 'xrpl:0'],
    ['stellar:pubnet', 'stellar:pubnet'],
    ['Lightning', 'lightning'],
  ])('%s -> %s', (network, chain) => {
    expect(toChainName(network)).toBe(chain);
  });
});

describe('challenge text in terms', () => {
  it('cleans an unknown network or asset as it enters: controls, bidi and XML-forbidden characters dropped', () => {
    expect(toChainName('\u202Exrpl:0\u0000\u001b\uFFFE')).toBe('xrpl:0');
    expect(toChainName('Hyper\u2066 Chain\u0085')).toBe('hyper-chain');
    expect(toAssetSymbol('base', '\u202EFAKE\u0001\uD800')).toBe('FAKE');
  });
});

describe('toCaip2', () => {
  it.each([
    ['base', 'eip155:8453'],
    ['Base Sepolia', 'eip155:84532'],
    ['eip155:8453', 'eip155:8453'],
    ['tempo', 'eip155:4217'],
    ['solana', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
    ['solana:mainnet', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
    ['xrpl:0', null],
    ['stripe', null],
  ])('%s -> %s', (name, caip2) => {
    expect(toCaip2(name)).toBe(caip2);
  });

  it('is the inverse of toChainName for every named chain', () => {
    for (const name of ['base', 'base-sepolia', 'polygon', 'arbitrum', 'optimism', 'ethereum', 'bnb', 'avalanche', 'tempo', 'sei', 'iotex', 'solana']) {
      expect(toChainName(toCaip2(name) as string)).toBe(name);
    }
  });
});

describe('toAssetSymbol', () => {
  it.each([
    ['base', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'USDC'],
    ['eip155:8453', '0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913', 'USDC'],
    ['base-sepolia', '0x036CbD53842c5426634e7929541eC2318f3dCF7e', 'USDC'],
    ['polygon', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'USDC'],
    ['arbitrum', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 'USDC'],
    ['arbitrum-sepolia', '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', 'USDC'],
    ['ethereum', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'USDC'],
    ['optimism', '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', 'USDC'],
    ['avalanche', '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', 'USDC'],
    ['solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'USDC'],
    ['solana-devnet', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', 'USDC'],
    ['tempo', '0x20c000000000000000000000b9537d11c60e8b50', 'USDC'],
    ['tempo-testnet', '0x20c0000000000000000000000000000000000000', 'pathUSD'],
    ['base', '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', 'EURC'],
    ['ethereum', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 'USDT'],
    ['ethereum', '0x6c3ea9036406852006290770BEdFcAbA0e23A0e8', 'PYUSD'],
    ['stable', '0x779Ded0c9e1022225f8E0630b35a9b54bE713736', 'USDT0'],
    ['', 'USD Coin', 'USDC'],
    ['', 'USDC.e', 'USDC'],
    ['', 'usd', 'USD'],
    ['', 'Tether USD', 'USDT'],
    ['', 'XRP', 'XRP'],
    // Base USDC on another chain is not USDC there; Solana mints are case-sensitive.
    ['polygon', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
    ['solana', 'epjfwdd5aufqssqem2qn1xzybapc8g4wegGkzwytdt1v', 'epjfwdd5aufqssqem2qn1xzybapc8g4wegGkzwytdt1v'],
    ['base', '0xf33CAC2bB6B26e7615B1873c84e4174Ae193A9aa', '0xf33CAC2bB6B26e7615B1873c84e4174Ae193A9aa'],
  ])('%s %s -> %s', (chain, asset, symbol) => {
    expect(toAssetSymbol(chain, asset)).toBe(symbol);
  });

  it('gives the decimals of known contracts only', () => {
    expect(getAssetDecimals('base', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')).toBe(6);
    expect(getAssetDecimals('bnb', '0x55d398326f99059fF775485246999027B3197955')).toBe(18);
    expect(getAssetDecimals('base', '0xf33CAC2bB6B26e7615B1873c84e4174Ae193A9aa')).toBeNull();
  });

  it.each([
    ['USDC', true],
    ['USDT0', true],
    ['pathUSD', true],
    ['USD', true],
    ['EURC', false],
    ['XRP', false],
    ['0xf33CAC2bB6B26e7615B1873c84e4174Ae193A9aa', false],
  ])('isUsdAsset(%s) is %s', (symbol, usd) => {
    expect(isUsdAsset(symbol)).toBe(usd);
  });
});

describe('toPrice', () => {
  it.each([
    ['10000', 6, undefined, 0.01, '$0.01 / call'],
    ['100000', 6, 'request', 0.1, '$0.1 / call'],
    ['25000', 6, 'record', 0.025, '$0.025 / record'],
    ['1', 6, 'token', 0.000001, '$0.000001 / token'],
    ['1000000', 6, undefined, 1, '$1 / call'],
    ['1234567891', 6, undefined, 1234.567891, '$1234.567891 / call'],
    ['000500', 6, undefined, 0.0005, '$0.0005 / call'],
    ['50', 2, undefined, 0.5, '$0.5 / call'],
    ['4', 2, 'request', 0.04, '$0.04 / call'],
    ['7', 0, undefined, 7, '$7 / call'],
    ['300000000000000000', 18, undefined, 0.3, '$0.3 / call'],
    ['10000', 6, 'Call', 0.01, '$0.01 / call'],
    ['10000', 6, '<script>', 0.01, '$0.01 / call'],
  ])('%s at %i decimals, unit %s -> %s', (amount, decimals, unit, usd, display) => {
    expect(toPrice(amount, decimals, unit)).toEqual({ usd, display });
  });

  it('keeps the exact decimal text where a float would drift', () => {
    expect(toPrice('30000000000000000100', 18).display).toBe('$30.0000000000000001 / call');
  });

  it('calls a zero amount free', () => {
    expect(toPrice('0', 6)).toEqual(FREE_PRICE);
  });

  it.each([[null], [undefined], [''], ['0.01'], ['-1'], ['1e6'], [' 100'], ['abc']])(
    'is unknown for amount %j',
    (amount) => {
      expect(toPrice(amount, 6)).toEqual(UNKNOWN_PRICE);
    },
  );

  it.each([[-1], [1.5], [Number.NaN], [99]])('is unknown for decimals %s', (decimals) => {
    expect(toPrice('10000', decimals)).toEqual(UNKNOWN_PRICE);
  });
});

describe('toSortedUnique', () => {
  it('drops repeats and sorts by code unit', () => {
    expect(toSortedUnique(['solana', 'base', 'base', 'USDC', 'eip155:1'])).toEqual(['USDC', 'base', 'eip155:1', 'solana']);
  });
});
