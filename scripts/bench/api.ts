/**
 * The `api` benchmark group: the real app on 100,000 synthetic services, each kind of read measured with
 * autocannon against the same load on a bare `node:http` server answering a detail response's bytes.
 */
import { prepareDatabase } from './database.ts';
import { LOAD, runLoad, type LoadResult, type LoadTarget } from './load.ts';
import { round, type BenchGroup, type Figure } from './report.ts';
import type { ServerReport } from './instrument.ts';
import { startServer, type ServerChild } from './server-child.ts';
import { seededRandom, type Random } from '../seeded-random.ts';
import { freshSearches, pick, syntheticId } from './synthetic.ts';

const SERVICES = 100_000;
const MB = 1024 * 1024;
/**
 * The detail figure and the bare baseline take turns, each measured in this many parts: on this VM the bare server
 * alone moved between 13,000 and 21,000 rps from one 5 s run to the next (BENCHMARKS.md).
 */
const ROUNDS = 3;
/** Filter combinations the filtered-list figure rotates over. */
const LIST_QUERIES = [
  'rail=x402&chain=base&live=true',
  'rail=mpp&asset=USDC',
  'chain=solana&limit=50',
  'chain=eip155:8453&asset=eurc',
  'live=true&limit=20',
];
/** Pages and filters the sorted lists rotate over, as an agent ranks what it can pay for. */
const SORTED_QUERIES = ['limit=20', 'offset=100&limit=50', 'live=true&limit=20', 'rail=x402&limit=20'];
/** An x402 client's pages of the Bazaar listing: the first ten pages of 100, and filtered first pages. */
const DISCOVERY_QUERIES = [...Array.from({ length: 10 }, (_, page) => `limit=100&offset=${page * 100}`),
  'type=http&limit=20', 'network=eip155:8453&limit=20', 'scheme=exact&limit=20', 'extensions=bazaar&limit=20'];
/** Price bounds per call, in USD. */
const MAX_PRICES = ['0.001', '0.01', '0.05', '0.1'];
/** The list queries the MCP figure asks, over REST and as search_services, side by side. */
const MCP_QUERIES: Array<Record<string, string | number | boolean>> = [
  { rail: 'x402', live: true, limit: 20 }, { sort: 'price', limit: 20 }, { chain: 'base', limit: 50 }, { q: 'weather', limit: 20 },
];
/** Words most synthetic endpoints hold (in their own text or their service's), alone and together. */
const COMMON_WORDS = ['api', 'agent', 'api agent'];
/** Search words that each match 0.6-1.2 % of the synthetic services (a realistic share for one topic). */
const Q_WORDS = ['weather', 'horoscope', 'earthquake', 'patent', 'tariff', 'chess'];
/** The same words beside a filter, as an agent narrows a search to what it can pay. */
const FILTERED_Q = ['rail=x402&q=weather', 'chain=base&q=horoscope', 'rail=mpp&q=earthquake', 'asset=usdc&q=patent',
  'chain=solana&live=true&q=tariff', 'rail=x402&chain=base&q=chess'];

interface Scenario {
  label: string;
  target: LoadTarget;
  /** Minimum requests per second as a fraction of the bare baseline. */
  minRatio?: number;
  /** Maximum server-side p99, in ms. */
  maxP99Ms?: number;
}

export const apiGroup: BenchGroup = { name: 'api', run };

async function run(emit: (figure: Figure) => void): Promise<void> {
  const data = prepareDatabase(SERVICES);
  emit({
    label: 'data',
    value: `${data.services} services, ${data.endpoints} endpoints, ${data.probes} probes ` +
      `(${data.cached ? 'cached; the fill took' : 'filled in'} ${data.fillSeconds.toFixed(0)} s)`,
  });
  const random = seededRandom(2026);
  const ids = Array.from({ length: 20_000 }, () => syntheticId(Math.floor(random() * SERVICES)));
  const app = await startServer('serve-app.ts', [data.path]);
  let bare: ServerChild | undefined;
  try {
    const sample = await fetch(`${app.url}/api/v1/services/${ids[0]}`);
    if (!sample.ok) throw new Error(`GET detail of ${ids[0]} answered ${sample.status}`);
    const body = await sample.text();
    bare = await startServer('serve-bare.ts', [body]);
    const [detail, ...others] = toScenarios(ids, random);
    const paired = await measureAlternating(bare, { next: () => ({ path: '/' }) }, app, detail!.target, ids.length);
    await bare.stop();
    emit({
      label: 'bare node:http rps',
      value: `${round(paired.bareRps)}  (constant ${body.length} B detail body; in ${ROUNDS} turns with the detail load)`,
    });
    emitScenario(emit, detail!, paired, paired.bareRps);
    for (const scenario of others) emitScenario(emit, scenario, await measure(app, scenario.target), paired.bareRps);
    await emitCommonWords(emit, app);

    // The MCP SDK is loaded on the first /mcp request: the figure before it is the server no agent asks over MCP.
    const beforeMcp = await app.report();
    emit({ label: 'server rss before MCP', value: `${(beforeMcp.peakRssBytes / MB).toFixed(0)} MB peak` });
    await emitMcpComparison(emit, app);

    const { rssBytes, peakRssBytes } = await app.report();
    emit({
      label: 'server rss',
      value: `${(peakRssBytes / MB).toFixed(0)} MB peak  (${(rssBytes / MB).toFixed(0)} MB after the runs)`,
      target: { actual: peakRssBytes / MB, op: '<=', limit: 150, unit: ' MB' },
    });
  } finally {
    await bare?.stop();
    await app.stop();
  }
}

function toScenarios(ids: string[], random: Random): Scenario[] {
  const batches = Array.from({ length: 200 }, () =>
    JSON.stringify({ ids: Array.from({ length: 100 }, () => pick(random, ids)) }));
  const paths = (list: string[]) => ({ next: rotate(list.map((path) => ({ path }))) });
  return [
    { label: 'detail', target: paths(ids.map((id) => `/api/v1/services/${id}`)), minRatio: 0.6 },
    { label: 'filtered list', target: paths(LIST_QUERIES.map((query) => `/api/v1/services?${query}`)), maxP99Ms: 10 },
    { label: 'q search', target: paths(Q_WORDS.map((word) => `/api/v1/services?q=${word}`)), maxP99Ms: 10 },
    { label: 'q with a filter', target: paths(FILTERED_Q.map((query) => `/api/v1/services?${query}`)) },
    // Nothing cached serves these (data/service-list.ts keeps what the pages of one query share): each is asked once.
    { label: 'q asked once', target: paths(freshSearches(random).map((q) => `/api/v1/services?q=${encodeURIComponent(q)}`)), maxP99Ms: 10 },
    { label: 'sort=quality', target: paths(SORTED_QUERIES.map((query) => `/api/v1/services?sort=quality&${query}`)), maxP99Ms: 10 },
    { label: 'sort=price', target: paths(SORTED_QUERIES.map((query) => `/api/v1/services?sort=price&${query}`)), maxP99Ms: 10 },
    { label: 'sort=uptime', target: paths(SORTED_QUERIES.map((query) => `/api/v1/services?sort=uptime&${query}`)), maxP99Ms: 10 },
    { label: 'max_price_usd', target: paths(MAX_PRICES.map((price) => `/api/v1/services?max_price_usd=${price}`)), maxP99Ms: 10 },
    { label: 'q sort=relevance', target: paths(Q_WORDS.map((word) => `/api/v1/services?q=${word}&sort=relevance`)), maxP99Ms: 10 },
    // Endpoints (issue 29): what an agent chooses and calls, searched, bounded by price and ordered by it.
    { label: 'endpoints q', target: paths(Q_WORDS.map((word) => `/api/v1/endpoints?q=${word}&limit=20`)), maxP99Ms: 10 },
    { label: 'endpoints max_price_usd', target: paths(MAX_PRICES.map((price) => `/api/v1/endpoints?max_price_usd=${price}&limit=20`)), maxP99Ms: 10 },
    { label: 'endpoints sort=price', target: paths(SORTED_QUERIES.map((query) => `/api/v1/endpoints?sort=price&${query}`)), maxP99Ms: 10 },
    { label: 'endpoints q asked once', target: paths(freshSearches(random).map((q) => `/api/v1/endpoints?q=${encodeURIComponent(q)}`)), maxP99Ms: 10 },
    // The index as an x402 Bazaar (issue 29): a client paging through the listing with its filters, and searching.
    { label: 'x402 discovery list', target: paths(DISCOVERY_QUERIES.map((query) => `/x402/discovery/resources?${query}`)), maxP99Ms: 10 },
    { label: 'x402 discovery search', target: paths(Q_WORDS.map((word) => `/x402/discovery/search?query=${word}&limit=20`)), maxP99Ms: 10 },
    // No target in the issue: the census is read by agents and every home page, so it is watched here.
    { label: 'stats', target: paths(['/api/v1/stats']), maxP99Ms: 10 },
    {
      label: 'batch of 100',
      target: { method: 'POST', next: rotate(batches.map((body) => ({ path: '/api/v1/services/batch', body }))) },
    },
  ];
}

function emitScenario(emit: (figure: Figure) => void, scenario: Scenario, measured: Measured, bareRps: number): void {
  const ratio = measured.load.rps / bareRps;
  emit({
    label: `${scenario.label} rps`,
    value: `${round(measured.load.rps)}  (${round(ratio)}x bare)`,
    target: scenario.minRatio === undefined ? undefined : { actual: ratio, op: '>=', limit: scenario.minRatio, unit: 'x' },
  });
  const { server } = measured;
  emit({
    label: `${scenario.label} p99 server`,
    value: `${round(server.p99Ms)} ms  (p50 ${round(server.p50Ms)} ms, ${server.requests} requests)`,
    target: scenario.maxP99Ms === undefined ? undefined : { actual: server.p99Ms, op: '<=', limit: scenario.maxP99Ms, unit: ' ms' },
  });
}

/**
 * MCP `search_services` over HTTP against the REST list for the same queries, measured one after the other on the same
 * server: the MCP figure's p99 is held to twice the REST one.
 */
async function emitMcpComparison(emit: (figure: Figure) => void, app: ServerChild): Promise<void> {
  const toSearch = (query: Record<string, string | number | boolean>) => new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const restTarget = { next: rotate(MCP_QUERIES.map((query) => ({ path: `/api/v1/services?${toSearch(query)}` }))) };
  const calls = MCP_QUERIES.map((query, id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_services', arguments: query } }));
  const mcpTarget: LoadTarget = {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream' },
    next: rotate(calls.map((body) => ({ path: '/mcp', body }))),
  };
  const rest = await measure(app, restTarget);
  const mcp = await measure(app, mcpTarget);
  emit({ label: 'REST list (MCP queries) p99 server', value: `${round(rest.server.p99Ms)} ms  (p50 ${round(rest.server.p50Ms)} ms, ${round(rest.load.rps)} rps)` });
  const ratio = mcp.server.p99Ms / rest.server.p99Ms;
  emit({
    label: 'MCP search_services p99 server',
    value: `${round(mcp.server.p99Ms)} ms  (${round(ratio)}x the REST list; p50 ${round(mcp.server.p50Ms)} ms, ${round(mcp.load.rps)} rps)`,
    target: { actual: ratio, op: '<=', limit: 2, unit: 'x' },
  });
}

/**
 * Endpoint searches of words most endpoints hold, each asked once (none is cached): how long the first ask holds the
 * server, and, in the RSS figure after it, what reading their matches costs its memory.
 */
async function emitCommonWords(emit: (figure: Figure) => void, app: ServerChild): Promise<void> {
  for (const q of COMMON_WORDS) {
    const started = performance.now();
    const answer = await fetch(`${app.url}/api/v1/endpoints?q=${encodeURIComponent(q)}&limit=20`);
    const { counts } = (await answer.json()) as { counts: { total: number } };
    emit({ label: `endpoints q=${q} first ask`, value: `${round((performance.now() - started) / 1000)} s  (${counts.total} matches)` });
  }
}

interface Measured {
  load: LoadResult;
  server: ServerReport;
}

/**
 * The load on the app and the same load's rps on the bare server, measured in turns (each side's time cut in
 * ROUNDS), so a change in the machine's speed during the minute falls on both sides of the ratio. `paths` is how
 * many different requests the app's target rotates over.
 */
async function measureAlternating(bare: ServerChild, bareTarget: LoadTarget, app: ServerChild, target: LoadTarget, paths: number): Promise<Measured & { bareRps: number }> {
  await runLoad(bare.url, bareTarget, LOAD.warmupSeconds);
  // Each of the rotation's paths once first: a lookup not held yet reads SQLite, and right after the database's fill
  // or copy the machine's file cache is cold, so a timed warm-up alone measured the disk, not the lookups.
  await runLoad(app.url, target, LOAD.warmupSeconds, { requests: paths });
  await runLoad(app.url, target, LOAD.warmupSeconds);
  await app.reset();
  const turn = LOAD.seconds / ROUNDS;
  let bareRps = 0;
  let appRps = 0;
  for (let i = 0; i < ROUNDS; i++) {
    bareRps += (await runLoad(bare.url, bareTarget, turn)).rps / ROUNDS;
    appRps += (await runLoad(app.url, target, turn)).rps / ROUNDS;
  }
  return { bareRps, load: { rps: appRps }, server: await app.report() };
}

/** A warm-up run, then the measured run with the server's timings reset in between. */
async function measure(child: ServerChild, target: LoadTarget): Promise<Measured> {
  await runLoad(child.url, target, LOAD.warmupSeconds);
  await child.reset();
  const load = await runLoad(child.url, target, LOAD.seconds);
  return { load, server: await child.report() };
}

function rotate<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => items[next++ % items.length] as T;
}
