/**
 * The webhook delivery worker (webhooks/worker.ts) as a process of its own, which `npm start` runs as its child
 * (webhooks/schedule.ts) so that signing and sending never take the API's time. It stops when its parent does:
 * on SIGTERM, or when its stdin (a pipe from the parent) closes, as it does when the parent is killed outright.
 */
import { readConfig } from '../api/config.ts';
import { createDnsResolver, toLookupFunction } from '../net/dns.ts';
import { createProbeAgent } from '../crawler/probe.ts';
import { openDatabase } from '../data/db.ts';
import { startDeliveryWorker } from '../webhooks/worker.ts';

const config = readConfig(process.env);
const db = openDatabase(config.databasePath);
// Receivers' names are resolved by DNS_SERVERS with a time limit: one whose DNS never answers fails its attempt in
// seconds and holds none of the threads the system's lookup would.
const dns = createDnsResolver({ servers: config.dnsServers });
const agent = createProbeAgent({ allow: config.allowPrivateTargets, lookup: toLookupFunction(dns.lookupAll) });
const worker = startDeliveryWorker({
  db,
  dispatcher: agent.dispatcher,
  allow: config.allowPrivateTargets,
  log: (line) => console.error(line),
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await worker.stop();
  await agent.dispatcher.close();
  db.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop).on('close', stop).resume();
// The parent writes a line when it has changes to deliver sooner than the next poll.
process.stdin.on('data', () => worker.wake());
