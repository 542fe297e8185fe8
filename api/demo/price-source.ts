/** Give up on the price source after this long: the answer then carries nulls, it never waits. */
export const PRICE_TIMEOUT_MS = 2_500;
/** Reuse a fetched price this long, so paid calls in a burst make one upstream call. */
export const PRICE_CACHE_MS = 60_000;
/** After a failure, wait this long before asking the source again. */
const FAILURE_CACHE_MS = 10_000;

const COIN_IDS = { BTC: 'bitcoin', ETH: 'ethereum' } as const;
export type PricedAsset = keyof typeof COIN_IDS;

export interface Quote {
  price_usd: number | null;
  change_24h_pct: number | null;
  as_of: string;
  source: string;
}

export interface PriceSource {
  getQuote: (asset: PricedAsset) => Promise<Quote>;
}

export interface PriceSourceOptions {
  url: string;
  now: () => Date;
  timeoutMs?: number;
}

/**
 * Quotes BTC and ETH in USD from the configured source, with a short timeout and a small cache; when the
 * source cannot be reached the quote has null numbers and `source` says why.
 * @example const quote = await createPriceSource({ url: config.priceSourceUrl, now: () => new Date() }).getQuote('BTC');
 */
export function createPriceSource({ url, now, timeoutMs = PRICE_TIMEOUT_MS }: PriceSourceOptions): PriceSource {
  const cache = new Map<PricedAsset, { quote: Quote; untilMs: number }>();
  const host = toHost(url);

  async function fetchQuote(asset: PricedAsset): Promise<{ quote: Quote; cacheMs: number }> {
    const coin = COIN_IDS[asset];
    const target = new URL(url);
    target.searchParams.set('ids', coin);
    target.searchParams.set('vs_currencies', 'usd');
    target.searchParams.set('include_24hr_change', 'true');
    const asOf = now().toISOString();
    try {
      const response = await fetch(target, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as Record<string, { usd?: unknown; usd_24h_change?: unknown } | undefined>;
      const price = body[coin]?.usd;
      const change = body[coin]?.usd_24h_change;
      if (typeof price !== 'number') throw new Error('no USD price in the answer');
      const quote = {
        price_usd: price,
        change_24h_pct: typeof change === 'number' ? Math.round(change * 100) / 100 : null,
        as_of: asOf,
        source: `${host} (live public price)`,
      };
      return { quote, cacheMs: PRICE_CACHE_MS };
    } catch (error) {
      const why = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describe(error);
      const quote = { price_usd: null, change_24h_pct: null, as_of: asOf, source: `${host} unreachable (${why}); no price available` };
      return { quote, cacheMs: FAILURE_CACHE_MS };
    }
  }

  return {
    getQuote: async (asset) => {
      const cached = cache.get(asset);
      if (cached && cached.untilMs > now().getTime()) return cached.quote;
      const { quote, cacheMs } = await fetchQuote(asset);
      cache.set(asset, { quote, untilMs: now().getTime() + cacheMs });
      return quote;
    },
  };
}

function toHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the price source';
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ? `${error.message}: ${cause.code}` : error.message;
}
