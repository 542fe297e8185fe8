/**
 * Inside a benchmark server child: times every request from its arrival to the last byte handed to the socket,
 * and answers the parent over IPC (`reset` clears the timings, `report` sends percentiles and memory).
 * The child exits when the parent disconnects.
 */
import type { Server } from 'node:http';

export type ChildCommand = 'reset' | 'report';

export type ChildMessage =
  | { type: 'ready'; url: string }
  | { type: 'reset' }
  | { type: 'report'; report: ServerReport };

export interface ServerReport {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  rssBytes: number;
  peakRssBytes: number;
}

/**
 * @example instrument(httpServer, 'http://127.0.0.1:40123/');
 */
export function instrument(server: Server, url: string): void {
  let durations: number[] = [];
  server.prependListener('request', (_request, response) => {
    const start = performance.now();
    response.once('finish', () => durations.push(performance.now() - start));
  });
  process.on('message', (command: ChildCommand) => {
    if (command === 'reset') {
      durations = [];
      send({ type: 'reset' });
    } else {
      const sorted = Float64Array.from(durations).sort();
      send({
        type: 'report',
        report: {
          requests: sorted.length,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
          rssBytes: process.memoryUsage().rss,
          peakRssBytes: process.resourceUsage().maxRSS * 1024,
        },
      });
    }
  });
  process.once('disconnect', () => process.exit(0));
  send({ type: 'ready', url });
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

function send(message: ChildMessage): void {
  if (!process.send) throw new Error('a benchmark server must be started by scripts/bench.ts (no IPC channel)');
  process.send(message);
}
