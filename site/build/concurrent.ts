/**
 * Runs `work` on every item with at most `limit` of them in flight, in order of start; rejects with the first
 * failure once the ones in flight have settled.
 * @example await forEachConcurrent(ids, 16, (id) => renderService(ctx, id));
 */
export async function forEachConcurrent<T>(items: ArrayLike<T>, limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    while (failure === null && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
