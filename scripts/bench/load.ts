/**
 * The load generator: autocannon in this process, against a server child, with the same connections and duration
 * for every target so the figures compare.
 */
import autocannon from 'autocannon';

export const LOAD = {
  connections: 20,
  seconds: positive(process.env.BENCH_SECONDS, 10),
  warmupSeconds: positive(process.env.BENCH_WARMUP_SECONDS, 3),
};

/**
 * One kind of request; `next` gives the next one of a rotation (a path, or a path with a JSON body; headers it gives
 * replace the target's).
 */
export interface LoadTarget {
  method?: 'GET' | 'POST';
  /** Headers of every request, beside the JSON content type of a POST. */
  headers?: Record<string, string>;
  next: () => { path: string; body?: string; headers?: Record<string, string> };
}

export interface LoadResult {
  rps: number;
}

/**
 * Runs the load for `seconds`, as fast as the server answers or at `options.rps` requests a second, or until
 * `options.requests` were answered; throws when anything but a 2xx came back, since the figures would mean nothing.
 * @example const { rps } = await runLoad(url, { next: () => ({ path: '/api/v1/stats' }) }, 10);
 */
export async function runLoad(url: string, target: LoadTarget, seconds: number, options: { rps?: number; requests?: number } = {}): Promise<LoadResult> {
  const method = target.method ?? 'GET';
  const result = await autocannon({
    url,
    connections: LOAD.connections,
    duration: seconds,
    ...(options.rps === undefined ? {} : { overallRate: options.rps }),
    ...(options.requests === undefined ? {} : { amount: options.requests }),
    // A slow response is a figure, not a failure: only give up on one after a minute.
    timeout: 60,
    requests: [
      {
        method,
        headers: { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...target.headers },
        setupRequest: (request) => ({ ...request, ...target.next() }),
      },
    ],
  });
  const failed = result.non2xx + result.errors;
  if (failed > 0) {
    throw new Error(`${failed} of ${result.requests.total} requests to ${url} failed ` +
      `(status counts ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors, ${result.timeouts} timeouts)`);
  }
  return { rps: result.requests.total / result.duration };
}

function positive(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!(number > 0)) throw new Error(`expected a positive number of seconds, got "${value}"`);
  return number;
}
