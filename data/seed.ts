import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project.ts';
import { preparedOnce, type DB } from './db.ts';
import { upsertServices } from './services.ts';
import type { ServiceInput } from './types.ts';

/** The embedded default dataset committed in `data/seed/` (directory data only, no probe results). */
export const SEED_PATH = join(PROJECT_ROOT, 'data', 'seed', 'services.json');

const statements = preparedOnce({ count: 'SELECT count(*) AS n FROM services' });

/** Reads the seed's services. */
export function readSeed(path = SEED_PATH): ServiceInput[] {
  const seed = JSON.parse(readFileSync(path, 'utf8')) as { services: ServiceInput[] };
  return seed.services;
}

/**
 * Loads the services into a database that has none; answers how many it loaded (0 when it already had some).
 * @example seedIfEmpty(db, readSeed(), new Date().toISOString());
 */
export function seedIfEmpty(db: DB, services: readonly ServiceInput[], now: string): number {
  const { n } = statements(db).count.get() as { n: number };
  if (n > 0) return 0;
  upsertServices(db, services, now, { changes: false });
  return services.length;
}
