import { serve } from 'h3';
import { openDatabase } from '../data/db.ts';
import { readSeed, seedIfEmpty } from '../data/seed.ts';
import { createApp } from './app.ts';
import { readConfig } from './config.ts';

/** `npm start`: open (creating and seeding when new) the database and serve the index. */
const config = readConfig(process.env);
const db = openDatabase(config.databasePath);
const seeded = seedIfEmpty(db, readSeed(), new Date().toISOString());
if (seeded > 0) console.log(`seeded ${seeded} services from the embedded default into ${config.databasePath}`);

const server = serve(createApp({ db, config, now: () => new Date() }), {
  hostname: config.host,
  port: config.port,
  silent: true,
});
await server.ready();
console.log(`Payable-Service Index listening on ${server.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    await server.close(true);
    db.close();
    process.exit(0);
  });
}
