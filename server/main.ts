import { formatInterval, startCrawlSchedule } from '../crawler/schedule.ts';
import { openDatabase } from '../data/db.ts';
import { keepSettingsOwn, SERVER_PROCESS } from '../processes.ts';
import { readSeed, seedIfEmpty } from '../data/seed.ts';
import { readSiteOptions } from '../site/build/config.ts';
import { createSite } from '../site/build/site.ts';
import { startDeliverySchedule } from '../webhooks/schedule.ts';
import { createApp, serveApp } from '../api/app.ts';
import { readConfig } from '../api/config.ts';
import { readReplicaConfig } from '../api/replica/config.ts';
import { serveReplica } from './replica.ts';

/**
 * `npm start`: open (creating and seeding when new) the database, serve the index, and keep it fresh with a
 * probe pass every PROBE_INTERVAL and discovery every DISCOVERY_INTERVAL (`--no-crawl` turns that off).
 * With REPLICA_OF it is a read replica instead (server/replica.ts): no database of its own, no crawls.
 */
keepSettingsOwn(SERVER_PROCESS);

if (readReplicaConfig(process.env)) {
  const replica = await serveReplica(process.env).catch((error) => {
    console.error(`replica: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  });
  console.log(`Payable-Service Index (read replica) listening on ${replica.url}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => replica.stop().then(() => process.exit(0)));
  // The replica serves until a signal: nothing below (the writer's database, its crawls) may run.
  await new Promise(() => {});
}

const config = readConfig(process.env);
const db = openDatabase(config.databasePath, { cacheKiB: SERVER_PROCESS.databaseCacheKiB });
const seeded = seedIfEmpty(db, readSeed(), new Date().toISOString());
if (seeded > 0) console.log(`seeded ${seeded} services from the embedded default into ${config.databasePath}`);

// The site is built before serving when missing or older than the data, and follows the data after each pass.
const site = createSite(db, readSiteOptions(process.env, config, (line) => console.log(`[site] ${line}`)));
await site.ensureBuilt().catch((error) => console.error(`[site] not built, serving the API only: ${error instanceof Error ? error.message : error}`));
const pages = { distDir: site.distDir, renderHome: site.renderHome, renderPurchase: site.renderPurchase };

const refreshSite = () => site.refresh().then(() => undefined, (error) => console.error(`[site] refresh failed: ${error instanceof Error ? error.message : error}`));

// Webhook deliveries run beside the server in a child of it, from the queue in the database.
const deliveries = startDeliverySchedule({
  env: { ...process.env, DATABASE_PATH: config.databasePath },
  log: (line) => console.log(`[webhooks] ${line}`),
});

// An owner's edit, delisting or recheck is a change: its pages re-render and its deliveries go, as after a crawl pass.
const onDataChanged = () => void (deliveries.wake(), refreshSite());
const server = serveApp(createApp({ db, config, now: () => new Date(), site: pages, onDataChanged }), {
  hostname: config.host,
  port: config.port,
});
await server.ready();
console.log(`Payable-Service Index listening on ${server.url}`);
console.log(`Open ${config.baseUrl ?? new URL(server.url!).origin}/ in a browser; the API is under /api/v1 (/docs explains it).`);
console.log(process.argv.includes('--no-crawl')
  ? 'No probe passes (--no-crawl): liveness stays as the database holds it.'
  : `A probe pass now and every ${formatInterval(config.probeIntervalMs)} (PROBE_INTERVAL); the directories are read every ` +
    `${formatInterval(config.discoveryIntervalMs)} (DISCOVERY_INTERVAL). Each pass's outcome: /status.`);

const stopCrawls = process.argv.includes('--no-crawl')
  ? async () => {}
  : startCrawlSchedule({
      probeIntervalMs: config.probeIntervalMs,
      discoveryIntervalMs: config.discoveryIntervalMs,
      env: { ...process.env, DATABASE_PATH: config.databasePath, STAGING_URL: config.stagingUrl ?? new URL(server.url!).origin },
      log: (line) => console.log(`[crawl] ${line}`),
      onPassFinished: () => (deliveries.wake(), refreshSite()),
      // Pages follow the results during a pass too (every 30 s), not only when it ends: a first pass offline takes minutes.
      onPassProgress: refreshSite,
    });

// npm passes a Ctrl-C on to this process as well: the second signal of one stop is not a second stop.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping: the pass in flight and the webhook worker end first.');
    await stopCrawls();
    await deliveries.stop();
    await server.close(true);
    db.close();
    console.log('Payable-Service Index stopped. Goodbye.');
    process.exit(0);
  });
}
