/**
 * The webhooks benchmark: a pass that changes every one of 10,000 services (each goes live: 10,000 changes), with
 * 100 subscriptions spread over 10 local receivers (each subscription follows 1 % of the services, so 10,000
 * deliveries; a receiver host gets one at a time). Figures: the cost of writing the change log in the probe pass's
 * write path (recordProbes in the crawl's batches, with the log against without), deliveries per second by the real
 * delivery worker (scripts/deliver.ts, as `npm start` runs it), the time from the end of the pass to the last
 * delivery, and the API's p99 while deliveries run against idle.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { openDatabase, type DB } from '../../data/db.ts';
import { recordProbes } from '../../data/probes.ts';
import { upsertServices } from '../../data/services.ts';
import type { ProbeInput } from '../../data/types.ts';
import { createWebhook } from '../../data/webhooks.ts';
import { deprioritize } from '../../processes.ts';
import { compiledChild } from './compiled.ts';
import { keepOffServerCore, startLoadGenerator } from './outside.ts';
import { round, type BenchGroup } from './report.ts';
import { startServer } from './server-child.ts';
import { syntheticId, syntheticService } from './synthetic.ts';

const CHANGES = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 10_000);
const SUBSCRIPTIONS = 100;
const RECEIVERS = 10;
/** The probe pass records in batches of this many (crawler/probe-pass.ts RECORD_BATCH). */
const RECORD_BATCH = 64;
const LOAD_SECONDS = 5;
/** Every this many deliveries, one is verified with the standardwebhooks package, as a receiver would. */
const VERIFY_EVERY = 50;

export const webhooksGroup: BenchGroup = {
  name: 'webhooks',
  async run(emit) {
    const dir = mkdtempSync(join(tmpdir(), 'psi-bench-webhooks-'));
    const receivers = await startReceivers();
    try {
      const ids = Array.from({ length: CHANGES }, (_, i) => syntheticId(i));
      const services = ids.map((_, i) => syntheticService(i));
      const at = new Date().toISOString();
      const goLive = (id: string): ProbeInput => ({ service_id: id, probed_at: at, ok: true, status_code: 402, method: 'GET', latency_ms: 40, reason: null, detected_rails: ['x402'] });

      // The write path with and without the log, each on a database of its own, twice in turn: the better of each.
      const timings = { with: Infinity, without: Infinity };
      for (const pass of [0, 1]) {
        for (const changes of [false, true]) {
          const scratch = openDatabase(join(dir, `write-${pass}-${changes}.db`));
          upsertServices(scratch, services, at, { changes: false });
          const ms = timeWrites(scratch, ids.map(goLive), changes);
          timings[changes ? 'with' : 'without'] = Math.min(timings[changes ? 'with' : 'without'], ms);
          scratch.close();
        }
      }
      const writeRatio = timings.without / timings.with;
      emit({
        label: 'probe writes with change log',
        value: `${round(CHANGES / (timings.with / 1000))}/s  (${round(writeRatio)}x of ${round(CHANGES / (timings.without / 1000))}/s without)`,
        target: { actual: writeRatio, op: '>=', limit: 0.95, unit: 'x' },
      });

      // The pass itself: subscriptions first, then the probes that change every service.
      const databasePath = join(dir, 'index.db');
      const db = openDatabase(databasePath);
      upsertServices(db, services, at, { changes: false });
      for (let k = 0; k < SUBSCRIPTIONS; k++) {
        const receiver = receivers[k % RECEIVERS]!;
        createWebhook(db, {
          id: `wh_bench_${k}`, url: `${receiver.url}/sub/${k}`, secret: receiver.secret, types: ['went_live'],
          services: ids.filter((_, i) => i % SUBSCRIPTIONS === k), rail: null, chain: null, asset: null, client: 'bench',
        }, at);
      }
      timeWrites(db, ids.map(goLive), true);
      db.close();

      const api = await startServer('serve-app.ts', [databasePath]);
      const loadGenerator = await startLoadGenerator();
      const pinned = keepOffServerCore(api.pid, [loadGenerator.pid]);
      const paths = ids.slice(0, 1000).map((id) => `/api/v1/services/${id}`);
      try {
        await loadGenerator.run({ url: api.url, paths, seconds: 2 });
        await api.reset();
        await loadGenerator.run({ url: api.url, paths, seconds: LOAD_SECONDS });
        const idle = await api.report();

        const started = performance.now();
        const worker = spawn(process.execPath, [await compiledChild('scripts/deliver.ts')], {
          env: { ...process.env, DATABASE_PATH: databasePath, ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
          stdio: ['pipe', 'inherit', 'inherit'],
        });
        deprioritize(worker);
        // The API's load starts with the first delivery, so it runs while they do.
        await waitFor(() => receivers.some((r) => r.count > 0), 60_000);
        await api.reset();
        await loadGenerator.run({ url: api.url, paths, seconds: LOAD_SECONDS });
        const during = await api.report();
        const deliveredBy = receivers.reduce((n, r) => n + r.count, 0);
        await waitFor(() => receivers.reduce((n, r) => n + r.count, 0) >= CHANGES, 600_000);
        const last = Math.max(...receivers.map((r) => r.lastAt));
        const first = Math.min(...receivers.map((r) => r.firstAt));
        worker.kill('SIGTERM');
        await new Promise((resolve) => worker.once('exit', resolve));

        const rate = CHANGES / ((last - first) / 1000);
        emit({ label: 'deliveries per second', value: `${round(rate)}/s  (${CHANGES} to ${SUBSCRIPTIONS} subscriptions on ${RECEIVERS} receivers)`, target: { actual: rate, op: '>=', limit: 500, unit: '/s' } });
        emit({ label: 'pass end to last delivery', value: `${round((last - started) / 1000)} s  (${deliveredBy} delivered during the API load)` });
        const failed = receivers.reduce((n, r) => n + r.unverified, 0);
        emit({ label: 'deliveries verified (sampled)', value: `${receivers.reduce((n, r) => n + r.verified, 0)} verified, ${failed} failed`, target: { actual: failed, op: '<=', limit: 0, unit: '' } });
        const ratio = during.p99Ms / idle.p99Ms;
        emit({
          label: 'API p99 during deliveries',
          value: `${round(during.p99Ms)} ms  (${round(ratio)}x idle ${round(idle.p99Ms)} ms${pinned ? '' : '; not kept off the server\'s core'})`,
          target: { actual: ratio, op: '<=', limit: 2, unit: 'x' },
        });
      } finally {
        await api.stop();
        loadGenerator.stop();
      }
    } finally {
      await Promise.all(receivers.map((receiver) => new Promise((resolve) => receiver.server.close(resolve))));
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** Records the probes as the probe pass does (batches, one transaction each); answers the milliseconds taken. */
function timeWrites(db: DB, probes: ProbeInput[], changes: boolean): number {
  const started = performance.now();
  for (let i = 0; i < probes.length; i += RECORD_BATCH) recordProbes(db, probes.slice(i, i + RECORD_BATCH), { changes });
  return performance.now() - started;
}

interface BenchReceiver {
  server: Server;
  url: string;
  secret: string;
  count: number;
  verified: number;
  unverified: number;
  firstAt: number;
  lastAt: number;
}

async function startReceivers(): Promise<BenchReceiver[]> {
  return Promise.all(Array.from({ length: RECEIVERS }, async () => {
    const receiver: BenchReceiver = {
      server: createServer(), url: '', secret: `whsec_${randomBytes(24).toString('base64')}`,
      count: 0, verified: 0, unverified: 0, firstAt: Infinity, lastAt: 0,
    };
    const signer = new Webhook(receiver.secret);
    receiver.server.keepAliveTimeout = 60_000;
    receiver.server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        receiver.count++;
        receiver.firstAt = Math.min(receiver.firstAt, performance.now());
        receiver.lastAt = performance.now();
        if (receiver.count % VERIFY_EVERY === 0) {
          try {
            signer.verify(Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>);
            receiver.verified++;
          } catch {
            receiver.unverified++;
          }
        }
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }));
}

async function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('deliveries did not all arrive in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
