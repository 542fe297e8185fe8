/**
 * Benchmark child: the fleet of the freshness measurement, one loopback address per service (more hosts than a
 * process may hold listeners), with the crawl benchmark's latency spread (1 % never answering in time). Sends the
 * parent every service's URL and method, and the time each probe should take.
 */
import { PROBE_TIMEOUT_MS } from '../../crawler/probe.ts';
import { startFleet } from '../fleet.ts';

const count = Number(process.argv[2] ?? 100_000);
const fleet = await startFleet({ count, hosts: 'addresses', ratios: { 'x402-v2-header': 99, slow: 1 }, latency: 'realistic', probeTimeoutMs: PROBE_TIMEOUT_MS, seed: 7 });
const endpoints = fleet.endpoints.map(({ url, method }) => ({ url, method }));
const expectedMs = fleet.endpoints.map((e) => (e.behaviour === 'slow' ? PROBE_TIMEOUT_MS : e.latencyMs));
process.send?.({ type: 'ready', endpoints, expectedMs });
process.on('disconnect', () => void fleet.close().then(() => process.exit(0)));
