/** A source of floats in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: a small, fast seeded PRNG, so the same seed gives the same fleet or the same synthetic index.
 * @example const random = seededRandom(2026); random() // 0.46…, the same on every run
 */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
