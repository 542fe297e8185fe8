/**
 * The `pay` benchmark group (`npm run bench -- pay`): how fast the server answers an agent's unpaid demo-service call (the x402 v2
 * challenge) and creates purchases, as ratios to a bare `node:http` server measured in the same run, and the
 * challenge's cost against a plain detail lookup (target: at most 2x). Runs on its own small temporary database,
 * so the purchases it creates never reach the `api` group's cached one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../../data/db.ts';
import { recordProbe } from '../../data/probes.ts';
import { upsertServices } from '../../data/services.ts';
import { DEMO_SERVICES } from '../../api/demo/registry.ts';
import { listDemoParams } from '../../api/demo/query.ts';
import { LOAD, runLoad, type LoadTarget } from './load.ts';
import { round, type BenchGroup, type Figure } from './report.ts';
import { startServer, type ServerChild } from './server-child.ts';
import { syntheticId, syntheticProbes, syntheticService } from './synthetic.ts';

/** Enough services that the detail lookup reads a real index; the fill takes well under a second. */
const SERVICES = 2_000;
/** A 402 challenge may cost at most this many detail lookups. */
const MAX_CHALLENGE_COST = 2;

/** Each demo service's first parameter, with every value it takes (the first parameter is always required). */
const FIRST_PARAMS = DEMO_SERVICES.map((service) => {
  const { name, values } = listDemoParams(service.query)[0]!;
  return { service, name, values };
});
/** One unpaid call per demo service and value, rotated. */
const CHALLENGE_PATHS = FIRST_PARAMS.flatMap(({ service, name, values }) => values.map((value) => `${service.path}?${name}=${value}`));
const PURCHASE_BODIES = FIRST_PARAMS.map(({ service, name, values }) => JSON.stringify({ service_id: service.id, params: { [name]: values[0] } }));

export const purchaseGroup: BenchGroup = { name: 'pay', run };

async function run(emit: (figure: Figure) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'psi-bench-purchase-'));
  let app: ServerChild | undefined;
  let bare: ServerChild | undefined;
  try {
    const path = join(dir, 'index.db');
    fillDatabase(path);
    app = await startServer('serve-app.ts', [path]);
    const ids = Array.from({ length: SERVICES }, (_, i) => syntheticId(i));
    const sample = await fetch(`${app.url}/api/v1/services/${ids[0]}`);
    if (!sample.ok) throw new Error(`GET detail of ${ids[0]} answered ${sample.status}`);
    bare = await startServer('serve-bare.ts', [await sample.text()]);
    const baseline = await measure(bare, { next: () => ({ path: '/' }) });
    await bare.stop();
    emit({ label: 'bare node:http rps', value: round(baseline) });

    const detail = await measure(app, { next: rotate(ids.map((id) => ({ path: `/api/v1/services/${id}` }))) });
    emit({ label: 'detail rps', value: `${round(detail)}  (${(detail / baseline).toFixed(2)}x bare)` });

    await runChallenges(app.url, LOAD.warmupSeconds);
    const challenge = await runChallenges(app.url, LOAD.seconds);
    emit({ label: 'unpaid challenge rps', value: `${round(challenge)}  (${(challenge / baseline).toFixed(2)}x bare)` });
    emit({
      label: 'challenge cost vs detail',
      value: `${(detail / challenge).toFixed(2)}x a detail lookup`,
      target: { actual: detail / challenge, op: '<=', limit: MAX_CHALLENGE_COST, unit: 'x' },
    });

    const creation = await measure(app, { method: 'POST', next: rotate(PURCHASE_BODIES.map((body) => ({ path: '/api/v1/purchases', body }))) });
    emit({ label: 'purchase creation rps', value: `${round(creation)}  (${(creation / baseline).toFixed(2)}x bare)` });
  } finally {
    await bare?.stop();
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function fillDatabase(path: string): void {
  const db = openDatabase(path);
  const services = Array.from({ length: SERVICES }, (_, i) => syntheticService(i));
  upsertServices(db, services, new Date().toISOString());
  db.transaction(() => services.forEach((service, i) => syntheticProbes(i, service).reverse().forEach((probe) => recordProbe(db, probe))))();
  db.close();
}

/** A warm-up run, then the measured one: requests per second. */
async function measure(child: ServerChild, target: LoadTarget): Promise<number> {
  await runLoad(child.url, target, LOAD.warmupSeconds);
  return (await runLoad(child.url, target, LOAD.seconds)).rps;
}

/** Unpaid demo-service calls under the same load as every figure; each must answer 402. */
async function runChallenges(url: string, seconds: number): Promise<number> {
  const next = rotate(CHALLENGE_PATHS);
  const result = await autocannon({
    url,
    connections: LOAD.connections,
    duration: seconds,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: next() }) }],
  });
  const statuses = Object.keys(result.statusCodeStats ?? {});
  if (result.errors + result.timeouts > 0 || statuses.some((status) => status !== '402')) {
    throw new Error(`unpaid calls must all answer 402; got status counts ${JSON.stringify(result.statusCodeStats)}, ` +
      `${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return result.requests.average;
}

function rotate<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => items[next++ % items.length] as T;
}
