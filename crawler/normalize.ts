/**
 * Normalizing what directories and challenges say into the index's words:
 * chain names, asset symbols and prices (a service's id: domain/service-id.ts). Pure functions, no I/O.
 */
import type { Price } from '../data/types.ts';
import { toChainName } from '../domain/chains.ts';
import { cleanText } from '../domain/text.ts';

/** A price nobody stated (dynamic, missing, or not in a USD asset). */
export const UNKNOWN_PRICE: Price = Object.freeze({ usd: null, display: null }) as Price;

/** The price of an endpoint listed as free. */
export const FREE_PRICE: Price = Object.freeze({ usd: 0, display: 'Free' }) as Price;

interface KnownAsset {
  symbol: string;
  decimals: number;
}

/**
 * Stablecoin contracts we are sure of, per chain, as published (EVM addresses checksummed, Solana mints exact).
 * Sources: protocols.md (x402 default assets, mppx Tempo defaults), `@x402/evm` DEFAULT_STABLECOINS, issuers' addresses.
 */
const KNOWN_ASSETS: ReadonlyArray<readonly [chain: string, address: string, symbol: string, decimals: number]> = [
  ['base', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'USDC', 6],
  ['base', '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', 'EURC', 6],
  ['base-sepolia', '0x036CbD53842c5426634e7929541eC2318f3dCF7e', 'USDC', 6],
  ['ethereum', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'USDC', 6],
  ['ethereum', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 'USDT', 6],
  ['ethereum', '0x6c3ea9036406852006290770BEdFcAbA0e23A0e8', 'PYUSD', 6],
  ['ethereum', '0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c', 'EURC', 6],
  ['polygon', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'USDC', 6],
  ['polygon', '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', 'USDT', 6],
  ['arbitrum', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 'USDC', 6],
  ['arbitrum-sepolia', '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', 'USDC', 6],
  ['optimism', '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', 'USDC', 6],
  ['avalanche', '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', 'USDC', 6],
  ['avalanche', '0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7', 'USDT', 6],
  ['avalanche-fuji', '0x5425890298aed601595a70AB815c96711a31Bc65', 'USDC', 6],
  ['bnb', '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', 'USDC', 18],
  ['bnb', '0x55d398326f99059fF775485246999027B3197955', 'USDT', 18],
  ['monad', '0x754704Bc059F8C67012fEd69BC8A327a5aafb603', 'USDC', 6],
  ['stable', '0x779Ded0c9e1022225f8E0630b35a9b54bE713736', 'USDT0', 6],
  ['stable-testnet', '0x78Cf24370174180738C5B8E352B6D14c83a6c9A9', 'USDT0', 6],
  ['tempo', '0x20C000000000000000000000b9537d11c60E8b50', 'USDC', 6], // USDC.e, the index shows it as USDC
  ['tempo-testnet', '0x20C0000000000000000000000000000000000000', 'pathUSD', 6],
  ['solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'USDC', 6],
  ['solana', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 'USDT', 6],
  ['solana-devnet', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', 'USDC', 6],
];

/** EVM addresses compare case-insensitively; other ids (Solana mints) are case-sensitive. */
function toAssetKey(chain: string, address: string): string {
  const trimmed = address.trim();
  return `${chain} ${/^0x[0-9a-f]{40}$/i.test(trimmed) ? trimmed.toLowerCase() : trimmed}`;
}

const ASSET_BY_KEY: ReadonlyMap<string, KnownAsset> = new Map(
  KNOWN_ASSETS.map(([chain, address, symbol, decimals]) => [toAssetKey(chain, address), { symbol, decimals }]),
);

/** Asset names seen in directories (lower-cased) and their symbols; ISO 4217 `usd` is Stripe's. */
const SYMBOL_BY_NAME: ReadonlyMap<string, string> = new Map(Object.entries({
  usdc: 'USDC',
  'usdc.e': 'USDC',
  'usd coin': 'USDC',
  'bridged usdc': 'USDC',
  usdt: 'USDT',
  'tether usd': 'USDT',
  tether: 'USDT',
  usdt0: 'USDT0',
  pyusd: 'PYUSD',
  'paypal usd': 'PYUSD',
  usdg: 'USDG',
  'global dollar': 'USDG',
  eurc: 'EURC',
  'euro coin': 'EURC',
  pathusd: 'pathUSD',
  usd: 'USD',
}));

/** Symbols whose unit is one US dollar: the USD stablecoins and Stripe's `usd`. */
const USD_SYMBOLS: ReadonlySet<string> = new Set(['USDC', 'USDT', 'USDT0', 'PYUSD', 'USDG', 'pathUSD', 'USD']);

function getKnownAsset(chain: string, asset: string): KnownAsset | undefined {
  return ASSET_BY_KEY.get(toAssetKey(toChainName(chain), asset));
}

/**
 * The symbol of an asset given as a contract address (per chain; EVM case-insensitive), a name or an ISO code;
 * unknown addresses are kept as given, cleaned (domain/text.ts): a challenge's text enters here.
 * @example toAssetSymbol('base', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913') // 'USDC'; toAssetSymbol('', 'USD Coin') // 'USDC'
 */
export function toAssetSymbol(chain: string, asset: string): string {
  const known = getKnownAsset(chain, asset);
  if (known) return known.symbol;
  const trimmed = cleanText(asset).trim();
  return SYMBOL_BY_NAME.get(trimmed.toLowerCase()) ?? trimmed;
}

/**
 * The decimals of a known stablecoin contract on a chain, or null when the contract is not one we know.
 * @example getAssetDecimals('base-sepolia', '0x036CbD53842c5426634e7929541eC2318f3dCF7e') // 6
 */
export function getAssetDecimals(chain: string, asset: string): number | null {
  return getKnownAsset(chain, asset)?.decimals ?? null;
}

/**
 * Whether amounts in this asset symbol are US dollars (USD stablecoins and Stripe `usd`).
 * @example isUsdAsset('USDC') // true; isUsdAsset('EURC') // false
 */
export function isUsdAsset(symbol: string): boolean {
  return USD_SYMBOLS.has(symbol);
}

/** `/ call` unless the directory names another unit (`record`, `token`); `request` and `call` both read `call`. */
function toUnitLabel(unit: string | undefined): string {
  const word = unit?.trim().toLowerCase() ?? '';
  if (word === '' || word === 'request' || word === 'call' || !/^[a-z][a-z0-9 -]{0,30}$/.test(word)) return 'call';
  return word;
}

/** Exact decimal text of an atomic amount: `toDecimalText('10000', 6)` is `'0.01'` (trailing zeros trimmed). */
export function toDecimalText(amountAtomic: string, decimals: number): string {
  const digits = amountAtomic.replace(/^0+(?=\d)/, '').padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/**
 * A USD price from an atomic amount and the asset's decimals; the caller checks the asset is USD (`isUsdAsset`).
 * Display is `$<exact decimal> / <unit>` (no float rounding, trailing zeros trimmed); zero is `Free`;
 * a missing, dynamic or malformed amount gives `UNKNOWN_PRICE`, never a guess.
 * @example toPrice('10000', 6) // { usd: 0.01, display: '$0.01 / call' }; toPrice('25000', 6, 'record') // '$0.025 / record'
 */
export function toPrice(amountAtomic: string | null | undefined, decimals: number, unit?: string): Price {
  if (typeof amountAtomic !== 'string' || !/^\d{1,78}$/.test(amountAtomic)) return UNKNOWN_PRICE;
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) return UNKNOWN_PRICE;
  const text = toDecimalText(amountAtomic, decimals);
  if (text === '0') return FREE_PRICE;
  return { usd: Number(text), display: `$${text} / ${toUnitLabel(unit)}` };
}

/**
 * The distinct values of a list of terms, sorted (code-unit order, so the output is stable everywhere).
 * @example toSortedUnique(['solana', 'base', 'base']) // ['base', 'solana']
 */
export function toSortedUnique<T extends string>(values: Iterable<T>): T[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
