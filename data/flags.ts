import { FLAGS, type Flag } from '../domain/schemas.ts';
import { preparedOnce, type DB } from './db.ts';

const statements = preparedOnce({
  read: `SELECT flags, live_rank, dual_rail FROM services WHERE id = ?`,
  write: `UPDATE services SET flags = ? WHERE id = ?`,
  deleteFacets: `DELETE FROM service_facets WHERE service_id = ? AND facet >= 'flag:' AND facet < 'flag;'`,
  insertFacet: `INSERT OR IGNORE INTO service_facets (facet, live_rank, service_id, dual_rail) VALUES (?, ?, ?, ?)`,
});

/** What a flag write changed: the flags before and after, each in FLAGS order. */
export interface FlagsChange {
  before: Flag[];
  after: Flag[];
}

/**
 * Sets a service's flags (in FLAGS order) and its `flag:` filter facets, whose tallies follow by trigger; writes
 * nothing when they are what is held. Runs in the caller's transaction, which re-renders the service's detail.
 * Answers the change, or null when there was none (or no such service).
 * @example writeServiceFlags(db, 'api-example-com', ['testnet_only']) // { before: [], after: ['testnet_only'] }
 */
export function writeServiceFlags(db: DB, id: string, flags: readonly Flag[]): FlagsChange | null {
  const s = statements(db);
  const row = s.read.get(id) as { flags: string; live_rank: number; dual_rail: number } | undefined;
  if (!row) return null;
  const before = JSON.parse(row.flags) as Flag[];
  const after = FLAGS.filter((flag) => flags.includes(flag));
  if (before.length === after.length && before.every((flag, i) => flag === after[i])) return null;
  s.write.run(JSON.stringify(after), id);
  s.deleteFacets.run(id);
  for (const flag of after) s.insertFacet.run(`flag:${flag}`, row.live_rank, id, row.dual_rail);
  return { before, after };
}
