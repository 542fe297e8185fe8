/**
 * A loader that runs `load` on its first call and gives every later caller the same promise: what a server may never
 * need (a package's code, a document) is loaded when first asked for, once. A failure is not kept: the next call
 * loads again, so one failed import does not fail its route until the server restarts.
 * @example const loadBadgeMaker = loadOnce(() => import('badge-maker')); const { makeBadge } = await loadBadgeMaker();
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  }));
}
