/** A token bucket per client: `limit` tokens, refilled evenly over `windowSeconds`. */
export interface RateLimiter {
  /**
   * Takes `tokens` (one by default); answers the tokens left, or the whole seconds to wait until there are that many,
   * when there are not (none is taken then).
   */
  take(client: string, nowMs: number, tokens?: number): { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** Buckets idle for this long are full again and are dropped, so memory stays bounded by active clients. */
const SWEEP_EVERY = 10_000;

/**
 * @example const limiter = createRateLimiter({ limit: 300, windowSeconds: 60 });
 */
export function createRateLimiter({ limit, windowSeconds }: { limit: number; windowSeconds: number }): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const refillPerMs = limit / (windowSeconds * 1000);
  let takes = 0;

  function sweep(nowMs: number): void {
    for (const [client, bucket] of buckets) {
      if (bucket.tokens + (nowMs - bucket.updatedMs) * refillPerMs >= limit) buckets.delete(client);
    }
  }

  return {
    take(client, nowMs, tokens = 1) {
      if (++takes % SWEEP_EVERY === 0) sweep(nowMs);
      const bucket = buckets.get(client) ?? { tokens: limit, updatedMs: nowMs };
      bucket.tokens = Math.min(limit, bucket.tokens + (nowMs - bucket.updatedMs) * refillPerMs);
      bucket.updatedMs = nowMs;
      buckets.set(client, bucket);
      if (bucket.tokens < tokens) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((tokens - bucket.tokens) / refillPerMs / 1000)) };
      }
      bucket.tokens -= tokens;
      return { allowed: true, remaining: Math.floor(bucket.tokens) };
    },
  };
}
