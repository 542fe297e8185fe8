/**
 * Benchmark child: the load generator in a process of its own (`startLoadGenerator` in outside.ts), so that it can be
 * kept off the server's core and below everything else in priority. Each order runs one load over its paths.
 */
import { runLoad, type LoadResult } from './load.ts';

export interface LoadOrder {
  url: string;
  /** Each request asks one of these, drawn at random. */
  paths: string[];
  seconds: number;
  rps?: number;
}

export type LoadAnswer = { result: LoadResult } | { error: string };

process.on('message', (order: LoadOrder) => {
  const next = () => ({ path: order.paths[Math.floor(Math.random() * order.paths.length)]! });
  runLoad(order.url, { next }, order.seconds, { rps: order.rps }).then(
    (result) => answer({ result }),
    (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
  );
});
process.once('disconnect', () => process.exit(0));

function answer(message: LoadAnswer): void {
  process.send!(message);
}
