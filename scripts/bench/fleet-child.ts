/**
 * Benchmark child: a fleet of payable endpoints with a realistic latency spread (1 % never answering in time), each
 * host listing 1 to 50 endpoints as the API benchmark's data has them, in its own process so it does not share an
 * event loop with the crawler. Sends the parent its directory URL and the time each request to each service (by id)
 * should take.
 */
import { toServiceId } from '../../domain/service-id.ts';
import { PROBE_TIMEOUT_MS } from '../../crawler/probe.ts';
import { startFleet } from '../fleet.ts';

const count = Number(process.argv[2] ?? 10_000);
const fleet = await startFleet({
  count, ratios: { 'x402-v2-header': 99, slow: 1 }, latency: 'realistic', probeTimeoutMs: PROBE_TIMEOUT_MS, seed: 7, endpointsPerService: 'realistic',
});
const expectedMs = fleet.endpoints.map((e) => (e.behaviour === 'slow' ? PROBE_TIMEOUT_MS : e.latencyMs));
const ids = fleet.endpoints.map((e) => toServiceId(e.url));
process.send?.({ type: 'ready', bazaar: fleet.directories.bazaar, expectedMs, ids });
process.on('disconnect', () => void fleet.close().then(() => process.exit(0)));
