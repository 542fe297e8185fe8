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
