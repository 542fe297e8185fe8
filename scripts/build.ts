/**
 * `npm run build`: renders the site and its JSON snapshots from DATABASE_PATH into a new release and switches
 * DIST_DIR (default `dist`) to it atomically. A database that does not exist yet is created and seeded with the
 * embedded default first, as `npm start` does.
 */
import { readConfig } from '../api/config.ts';
import { openDatabase } from '../data/db.ts';
import { readSeed, seedIfEmpty } from '../data/seed.ts';
import { buildSite } from '../site/build/build.ts';
import { readSiteOptions } from '../site/build/config.ts';

const config = readConfig(process.env);
const db = openDatabase(config.databasePath);
try {
  const seeded = seedIfEmpty(db, readSeed(), new Date().toISOString());
  if (seeded > 0) console.log(`seeded ${seeded} services from the embedded default into ${config.databasePath}`);
  await buildSite(db, readSiteOptions(process.env, config, (line) => console.log(line)));
} catch (error) {
  console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  db.close();
}
