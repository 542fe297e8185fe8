/**
 * Benchmark child: a fleet of payable endpoints with a realistic latency spread (1 % never answering in time),
 * in its own process so it does not share an event loop with the crawler. Sends the parent its directory URL and
 * the time each probe should take.
 */
import { PROBE_TIMEOUT_MS } from '../../crawler/probe.ts';
import { startFleet } from '../fleet.ts';

const count = Number(process.argv[2] ?? 10_000);
const fleet = await startFleet({ count, ratios: { 'x402-v2-header': 99, slow: 1 }, latency: 'realistic', probeTimeoutMs: PROBE_TIMEOUT_MS, seed: 7 });
const expectedMs = fleet.endpoints.map((e) => (e.behaviour === 'slow' ? PROBE_TIMEOUT_MS : e.latencyMs));
process.send?.({ type: 'ready', bazaar: fleet.directories.bazaar, expectedMs });
process.on('disconnect', () => void fleet.close().then(() => process.exit(0)));
