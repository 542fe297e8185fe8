/**
 * Chain names: the index's own names (`base`, `solana`) and the CAIP-2 ids and other spellings directories and
 * challenges use. Pure, shared by the crawler (normalizing) and the list's `chain` filter (either spelling).
 */
import { cleanText } from './text.ts';

/** Chain names of the index and their CAIP-2 ids (protocols.md, "Network identifiers"). */
const CAIP2_BY_CHAIN: ReadonlyMap<string, string> = new Map(Object.entries({
  base: 'eip155:8453',
  'base-sepolia': 'eip155:84532',
  ethereum: 'eip155:1',
  sepolia: 'eip155:11155111',
  polygon: 'eip155:137',
  'polygon-amoy': 'eip155:80002',
  avalanche: 'eip155:43114',
  'avalanche-fuji': 'eip155:43113',
  arbitrum: 'eip155:42161',
  'arbitrum-sepolia': 'eip155:421614',
  optimism: 'eip155:10',
  bnb: 'eip155:56',
  sei: 'eip155:1329',
  'sei-testnet': 'eip155:1328',
  iotex: 'eip155:4689',
  abstract: 'eip155:2741',
  'abstract-testnet': 'eip155:11124',
  peaq: 'eip155:3338',
  story: 'eip155:1514',
  educhain: 'eip155:41923',
  'skale-base-sepolia': 'eip155:324705682',
  monad: 'eip155:143',
  megaeth: 'eip155:4326',
  stable: 'eip155:988',
  'stable-testnet': 'eip155:2201',
  tempo: 'eip155:4217',
  'tempo-testnet': 'eip155:42431',
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana-devnet': 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  'solana-testnet': 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
}));

const CHAIN_BY_CAIP2: ReadonlyMap<string, string> = new Map([
  ...[...CAIP2_BY_CHAIN].map(([chain, caip2]) => [caip2, chain] as const),
  ['solana:mainnet', 'solana'],
  ['solana:devnet', 'solana-devnet'],
  ['solana:testnet', 'solana-testnet'],
]);

/** Other spellings seen in directories, after lower-casing and turning spaces and `_` into `-`. */
const CHAIN_ALIASES: ReadonlyMap<string, string> = new Map(Object.entries({
  'base-mainnet': 'base',
  'ethereum-mainnet': 'ethereum',
  mainnet: 'ethereum',
  'polygon-pos': 'polygon',
  'arbitrum-one': 'arbitrum',
  'op-mainnet': 'optimism',
  bsc: 'bnb',
  'bnb-chain': 'bnb',
  'bnb-smart-chain': 'bnb',
  'avalanche-c-chain': 'avalanche',
  'tempo-moderato': 'tempo-testnet',
  'solana-mainnet': 'solana',
}));

/**
 * The index's chain name for a network id: CAIP-2, x402 v1 name, underscore name or a human name.
 * Unknown CAIP-2 ids are kept as given, cleaned (domain/text.ts: a challenge's text enters here); other unknown names
 * are lower-cased with spaces as `-`.
 * @example toChainName('eip155:8453') // 'base'; toChainName('base_sepolia') // 'base-sepolia'; toChainName('xrpl:0') // 'xrpl:0'
 */
export function toChainName(network: string): string {
  const trimmed = cleanText(network).trim();
  if (trimmed.includes(':')) {
    const [namespace = '', ...rest] = trimmed.split(':');
    const caip2 = `${namespace.toLowerCase()}:${rest.join(':')}`;
    return CHAIN_BY_CAIP2.get(caip2) ?? CHAIN_BY_CAIP2.get(caip2.toLowerCase()) ?? trimmed;
  }
  const name = trimmed.toLowerCase().replace(/[\s_]+/g, '-');
  return CHAIN_ALIASES.get(name) ?? name;
}

/**
 * The CAIP-2 id of a chain, given by name or by any id `toChainName` understands; null when unknown.
 * @example toCaip2('base') // 'eip155:8453'; toCaip2('Base Sepolia') // 'eip155:84532'
 */
export function toCaip2(name: string): string | null {
  return CAIP2_BY_CHAIN.get(toChainName(name)) ?? null;
}

/** Words that name a test network in the index's chain names (`base-sepolia`, `solana-devnet`, `polygon-amoy`). */
const TESTNET_WORDS = /(^|-)(sepolia|testnet|devnet|amoy|fuji|goerli|holesky|moderato)($|-)/;

/**
 * Whether a chain (any spelling `toChainName` understands) is a test network, where no real payment can be made.
 * @example isTestnet('eip155:84532') // true; isTestnet('base') // false
 */
export function isTestnet(chain: string): boolean {
  return TESTNET_WORDS.test(toChainName(chain));
}
