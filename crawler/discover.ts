import { getServiceInput, upsertServices } from '../data/services.ts';
import type { DB } from '../data/db.ts';
import type { ServiceInput } from '../data/types.ts';
import { toServices } from './dedupe.ts';
import { readDirectory, type DirectoryConfig } from './directories.ts';
import type { DiscoveredEndpoint } from './discovered.ts';
import { mergeWithStored } from './merge.ts';

export interface DiscoverySummary {
  /**
   * Per directory URL: endpoints found, malformed items skipped, pages read, and the error; a directory whose later
   * page failed has both its first pages' endpoints and the error.
   */
  directories: Array<{ kind: string; url: string; endpoints: number; skipped: number; pages: number; error: string | null }>;
  services: { found: number; new: number; updated: number };
}

export interface DiscoverOptions {
  directories: DirectoryConfig[];
  /** Endpoints every crawl adds without fetching (the curated ACP list, the index's own catalog). */
  extra?: DiscoveredEndpoint[];
  limit?: number;
  now: () => Date;
  timeoutMs?: number;
}

/**
 * Reads every directory (one failing never stops the others), dedupes what they list into one service per host,
 * merges each with what the index holds, and writes them in one transaction.
 * @example await discover(db, { directories: DEFAULT_DIRECTORIES, now: () => new Date() });
 */
export async function discover(db: DB, options: DiscoverOptions): Promise<DiscoverySummary> {
  const results = await Promise.all(
    options.directories.map(async (config) => {
      try {
        const { incomplete, ...result } = await readDirectory(config, { timeoutMs: options.timeoutMs });
        return { config, ...result, error: incomplete };
      } catch (error) {
        return { config, endpoints: [], skipped: 0, pages: 0, error: (error as Error).message };
      }
    }),
  );
  const endpoints = [...results.flatMap((r) => r.endpoints), ...(options.extra ?? [])];
  // A kind's stored listings are replaced only when every directory of that kind was read in full: the eight Bazaar
  // facilitators share one kind, and one of them being down (or failing halfway) must not unlist what only it lists.
  const failedKinds = new Set(results.filter((r) => r.error !== null).map((r) => r.config.kind as string));
  const crawledKinds = new Set([
    ...results.map((r) => r.config.kind as string).filter((kind) => !failedKinds.has(kind)),
    ...(options.extra ?? []).map((e) => e.source as string),
  ]);
  const found = toServices(endpoints).slice(0, options.limit ?? Infinity);
  let created = 0;
  const merged: ServiceInput[] = found.map((service) => {
    const stored = getServiceInput(db, service.id);
    if (!stored) created += 1;
    return mergeWithStored(service, stored, crawledKinds);
  });
  upsertServices(db, merged, options.now().toISOString());
  return {
    directories: results.map((r) => ({
      kind: r.config.kind, url: r.config.url, endpoints: r.endpoints.length, skipped: r.skipped, pages: r.pages, error: r.error,
    })),
    services: { found: found.length, new: created, updated: found.length - created },
  };
}

/**
 * The directories a discovery could not read, in one line for a console that runs passes on a schedule (npm start),
 * or null when every one was read. "offline?" only when none was: one failing alone is that directory's problem.
 * @example describeFailedDirectories(summary.directories) // '3 directories could not be reached (offline?): bazaar ×2, mpp.dev; /status lists each error'
 */
export function describeFailedDirectories(directories: DiscoverySummary['directories']): string | null {
  const failed = directories.filter((directory) => directory.error !== null);
  if (failed.length === 0) return null;
  const kinds = new Map<string, number>();
  for (const { kind } of failed) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  const named = [...kinds].map(([kind, count]) => (count === 1 ? kind : `${kind} ×${count}`)).join(', ');
  const noun = directories.length === 1 ? 'directory' : 'directories';
  const what = failed.length === directories.length
    ? `${failed.length} ${noun} could not be reached (offline?)`
    : `${failed.length} of ${directories.length} ${noun} could not be read`;
  return `${what}: ${named}; /status lists each error`;
}
