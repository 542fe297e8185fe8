/**
 * The median of some numbers, rounded to a whole number: the middle one, or the mean of the two middle ones; null
 * for none. The one median of the index: daily roll-ups (data/crawl.ts) and every page's figures use it.
 * @example median([40, 10, 30, 20]) // 25
 */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.round(value);
}

/**
 * The median of values that each count `weight` times, rounded to a whole number: the value at which half the
 * total weight is reached, or the mean of the two values either side when half falls exactly between them (so with
 * every weight 1 it is `median`); null when the weights add up to nothing.
 * @example weightedMedian([[100, 1], [300, 3]]) // 300
 */
export function weightedMedian(entries: ReadonlyArray<readonly [value: number, weight: number]>): number | null {
  const sorted = entries.filter(([, weight]) => weight > 0).sort((a, b) => a[0] - b[0]);
  const half = sorted.reduce((sum, [, weight]) => sum + weight, 0) / 2;
  let reached = 0;
  for (const [index, [value, weight]] of sorted.entries()) {
    reached += weight;
    if (reached > half) return Math.round(value);
    if (reached === half) return Math.round((value + sorted[index + 1]![0]) / 2);
  }
  return null;
}
