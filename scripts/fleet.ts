/**
 * A local fleet of payable endpoints for tests, the demo and the benchmark: ONE node:http server on
 * an ephemeral 127.0.0.1 port, routing `/svc/<n>/...` to service n (so 10,000 services cost
 * nothing), plus a Bazaar directory (`/bazaar/discovery/resources`) and an mpp.dev-shaped one
 * (`/mpp/api/services`) listing them. Behaviours are mixed by ratio (seeded) or given in order.
 *
 * CLI: `npx tsx scripts/fleet.ts --count 50 [--seed 1] [--latency none|realistic] [--port 0]
 * [--behaviours a,b] [--probe-timeout-ms 10000]` prints the directory URLs and keeps running.
 * Probing it needs `ALLOW_PRIVATE_TARGETS=127.0.0.1`.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROBE_TIMEOUT_MS } from '../crawler/probe.ts';
import { PROJECT_ROOT } from '../project.ts';
import { seededRandom } from './seeded-random.ts';
import { BEHAVIOURS, TRUST_BEHAVIOURS, getBehaviourSpec, isBehaviour, type Behaviour, type ExpectedOutcome } from './fleet/behaviours.ts';
import { toBazaarPage, toMppDocument } from './fleet/directories.ts';
import {
  EXTREME_AMOUNT,
  MAIN_PATH,
  RETIRED_ENDPOINT_PATHS,
  TEMPLATE_PATH,
  serveService,
  type FleetService,
  type ServeContext,
} from './fleet/serve.ts';

export interface FleetOptions {
  count: number;
  /** Behaviours in order: service n gets `behaviours[n % length]`. Overrides `ratios`. */
  behaviours?: readonly Behaviour[];
  /** Relative shares of a seeded random mix; default: a realistic mix of every behaviour. */
  ratios?: Partial<Record<Behaviour, number>>;
  /** `realistic`: each service answers every request after its own delay, drawn from a log-normal spread (median 80 ms). */
  latency?: 'none' | 'realistic';
  seed?: number;
  /** The probe time limit the expectations assume (slow behaviours outlast it). */
  probeTimeoutMs?: number;
  port?: number;
  /**
   * `ports` (default): each service on a loopback port of its own, one listener each. `addresses`: each service on a
   * loopback address of its own (127.1.1.1, 127.1.1.2, ...) at one shared port, for more hosts than a process may
   * hold listeners (100,000 services); the listener is bound to every address and drops connections not from this
   * machine. Probing it needs `ALLOW_PRIVATE_TARGETS=127.0.0.0/8`.
   */
  hosts?: 'ports' | 'addresses';
  /**
   * How many endpoints each service lists, its main one included: `one` (default), or `realistic`, 1 to 50 drawn as
   * the API benchmark's data has them (most list one; scripts/bench/synthetic.ts). The others are `/e/<k>`.
   */
  endpointsPerService?: 'one' | 'realistic';
  /** Keep a log of every request to a service: its host, path, and when it arrived and was answered (`Fleet.requests`). */
  logRequests?: boolean;
}

/** One request to a fleet service, as its server saw it (times from `performance.now()`). */
export interface FleetRequest {
  host: string;
  method: string;
  path: string;
  startedMs: number;
  /** When the answer was sent or the connection closed. */
  endedMs: number;
}

export interface FleetEndpoint {
  url: string;
  method: string | null;
  /** The example body the directory gives, if any. */
  body?: unknown;
  behaviour: Behaviour;
  expected: ExpectedOutcome;
  /** The delay the service adds before every answer. */
  latencyMs: number;
}

export interface Fleet {
  origin: string;
  directories: { bazaar: string; mpp: string };
  endpoints: FleetEndpoint[];
  /** Every request to a service, when `logRequests` (in the order they ended). */
  requests: FleetRequest[];
  close(): Promise<void>;
}

/** USDC atomic amounts a service may charge ($0.001 to $0.10). */
const AMOUNTS = ['1000', '5000', '10000', '20000', '50000', '100000'];
const LATENCY_MEDIAN_MS = 80;
const LATENCY_SIGMA = 0.9;

function createPicker(options: FleetOptions, random: () => number): (n: number) => Behaviour {
  const { behaviours } = options;
  if (behaviours !== undefined && behaviours.length > 0) return (n) => behaviours[n % behaviours.length] as Behaviour;
  const weights = [...BEHAVIOURS, ...TRUST_BEHAVIOURS].map((b) => [b, options.ratios ? (options.ratios[b] ?? 0) : getBehaviourSpec(b).weight] as const);
  const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
  if (total <= 0) throw new Error('fleet: ratios must give some behaviour a positive share');
  return () => {
    let pick = random() * total;
    for (const [behaviour, weight] of weights) {
      pick -= weight;
      if (pick < 0) return behaviour;
    }
    return 'x402-v2-header';
  };
}

/** A log-normal delay (Box-Muller), capped so that 4 requests (a redirect chain) fit in half the probe time limit. */
function drawLatencyMs(random: () => number, probeTimeoutMs: number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const cap = probeTimeoutMs / 8;
  return Math.round(Math.min(cap, LATENCY_MEDIAN_MS * Math.exp(LATENCY_SIGMA * normal)));
}

/** The paths a service lists: its main one first, then `/e/<k>` (1 to 50 in all when `realistic`, as the API benchmark's data). */
function toListedPaths(behaviour: Behaviour, options: FleetOptions, random: () => number): string[] {
  if (behaviour === 'template-only' || behaviour === 'template-example') return [TEMPLATE_PATH];
  if (behaviour === 'retired-endpoint') return [MAIN_PATH, ...RETIRED_ENDPOINT_PATHS];
  const count = options.endpointsPerService === 'realistic' ? 1 + Math.floor(49 * random() ** 10) : 1;
  return [MAIN_PATH, ...Array.from({ length: count - 1 }, (_, k) => `/e/${k + 1}`)];
}

function createServices(options: FleetOptions, origins: string[], probeTimeoutMs: number): FleetService[] {
  const random = seededRandom(options.seed ?? 1);
  const pick = createPicker(options, random);
  return origins.map((origin, n) => {
    const behaviour = pick(n);
    const basePath = `/svc/${n}`;
    const drawn = AMOUNTS[Math.floor(random() * AMOUNTS.length)] ?? '10000';
    const amount = behaviour === 'extreme-price' ? EXTREME_AMOUNT : drawn;
    const latencyMs = options.latency === 'realistic' ? drawLatencyMs(random, probeTimeoutMs) : 0;
    const listedPaths = toListedPaths(behaviour, options, random);
    const offer = { url: `${origin}${basePath}${listedPaths[0]}`, amount, description: `Fleet service ${n} quote` };
    return { n, behaviour, origin, basePath, listedPaths, offer, latencyMs };
  });
}

/** Logs each request to a service once it is answered or its connection closes. */
function logRequest(requests: FleetRequest[], req: IncomingMessage, res: ServerResponse): void {
  const startedMs = performance.now();
  let logged = false;
  const log = () => {
    if (logged) return;
    logged = true;
    requests.push({ host: req.headers.host ?? '', method: req.method ?? '', path: req.url ?? '', startedMs, endedMs: performance.now() });
  };
  res.once('finish', log);
  res.once('close', log);
}

function sendJson(res: ServerResponse, document: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' });
  res.end(JSON.stringify(document));
}

function createRouter(
  services: FleetService[],
  origin: string,
  ctx: ServeContext,
  requests: FleetRequest[] | null,
): (req: IncomingMessage, res: ServerResponse) => void {
  const lastUpdated = new Date().toISOString();
  return (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (requests !== null && url.pathname.startsWith('/svc/')) logRequest(requests, req, res);
    if (url.pathname === '/bazaar/discovery/resources') return sendJson(res, toBazaarPage(services, url.searchParams, lastUpdated));
    if (url.pathname === '/mpp/api/services') return sendJson(res, toMppDocument(services, ctx.realm));
    const match = /^\/svc\/(\d+)(\/.*)$/.exec(url.pathname);
    const service = match === null ? undefined : services[Number(match[1])];
    if (match === null || service === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end('{"error":"not found"}');
    }
    serveService(service, match[2] ?? '', req, res, ctx);
  };
}

async function listen(port: number, address = '127.0.0.1'): Promise<{ server: Server; origin: string }> {
  const server = createServer({ keepAliveTimeout: 5_000 });
  server.listen(port, address);
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Loopback addresses 127.1.1.1 on, one per service, never a .0 or .255 octet. */
function toLoopbackAddress(n: number): string {
  const [high, rest] = [Math.floor(n / (254 * 254)), n % (254 * 254)];
  return `127.${1 + high}.${1 + Math.floor(rest / 254)}.${1 + (rest % 254)}`;
}

/** The services' origins and the listeners they need besides the directories' (`options.hosts`). */
async function listenForServices(options: FleetOptions, directories: Server): Promise<{ origins: string[]; listeners: Server[] }> {
  if (options.hosts === 'addresses') {
    const port = (directories.address() as AddressInfo).port;
    directories.on('connection', (socket) => {
      if (!socket.remoteAddress?.startsWith('127.')) socket.destroy();
    });
    return { origins: Array.from({ length: options.count }, (_, n) => `http://${toLoopbackAddress(n)}:${port}`), listeners: [] };
  }
  const listeners: Server[] = [];
  for (let n = 0; n < options.count; n++) listeners.push((await listen(0)).server);
  return { origins: listeners.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`), listeners };
}

/**
 * Starts a fleet of `count` services, each on its own loopback port or address (so each is its own host, as the index
 * dedupes by host), plus the directories on `port`; `close()` stops them and every open connection.
 * @example const fleet = await startFleet({ count: 50, behaviours: BEHAVIOURS, latency: 'none', probeTimeoutMs: 500 })
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const probeTimeoutMs = options.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
  const { server, origin } = await listen(options.port ?? 0, options.hosts === 'addresses' ? '0.0.0.0' : '127.0.0.1');
  const forServices = await listenForServices(options, server);
  const listeners = [server, ...forServices.listeners];
  const origins = forServices.origins;
  const services = createServices(options, origins, probeTimeoutMs);
  const ctx: ServeContext = { realm: new URL(origin).host, slowMs: probeTimeoutMs * 3, hits: new Map() };
  const requests: FleetRequest[] = [];
  const router = createRouter(services, origin, ctx, options.logRequests ? requests : null);
  for (const listener of listeners) listener.on('request', router);

  const endpoints = services.map(({ offer, behaviour, latencyMs }): FleetEndpoint => {
    const spec = getBehaviourSpec(behaviour);
    const body = spec.body === undefined ? {} : { body: spec.body };
    return { url: offer.url, method: spec.method, ...body, behaviour, expected: spec.expected(probeTimeoutMs, latencyMs), latencyMs };
  });
  const close = async (): Promise<void> => {
    await Promise.all(
      listeners.map((listener) => {
        const closed = once(listener, 'close');
        listener.close();
        listener.closeAllConnections();
        return closed;
      }),
    );
  };
  return { origin, directories: { bazaar: `${origin}/bazaar/discovery/resources`, mpp: `${origin}/mpp/api/services` }, endpoints, requests, close };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '50' },
      seed: { type: 'string', default: '1' },
      latency: { type: 'string', default: 'realistic' },
      port: { type: 'string', default: '0' },
      behaviours: { type: 'string' },
      'probe-timeout-ms': { type: 'string', default: String(PROBE_TIMEOUT_MS) },
    },
  });
  const behaviours = values.behaviours?.split(',').map((name) => name.trim());
  const unknown = behaviours?.filter((name) => !isBehaviour(name)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown behaviours: ${unknown.join(', ')} (known: ${BEHAVIOURS.join(', ')})`);
  const fleet = await startFleet({
    count: Number(values.count),
    seed: Number(values.seed),
    latency: values.latency === 'none' ? 'none' : 'realistic',
    port: Number(values.port),
    probeTimeoutMs: Number(values['probe-timeout-ms']),
    ...(behaviours === undefined ? {} : { behaviours: behaviours.filter(isBehaviour) }),
  });
  const counts = new Map<Behaviour, number>();
  for (const { behaviour } of fleet.endpoints) counts.set(behaviour, (counts.get(behaviour) ?? 0) + 1);
  console.log(`fleet of ${fleet.endpoints.length} services on ${fleet.origin} (probe with ALLOW_PRIVATE_TARGETS=127.0.0.1)`);
  console.log(`bazaar: ${fleet.directories.bazaar}`);
  console.log(`mpp:    ${fleet.directories.mpp}`);
  console.log([...counts].map(([behaviour, count]) => `  ${behaviour}: ${count}`).join('\n'));
  const stop = (): void => void fleet.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Run as `tsx scripts/fleet.ts` only: compiled into another entry point (the bench's fleet child), this module's
// import.meta.url is that entry's, so it cannot tell.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === join(PROJECT_ROOT, 'scripts', 'fleet.ts')) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
