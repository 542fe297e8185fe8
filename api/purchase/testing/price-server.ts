import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalPriceServer {
  /** As PRICE_SOURCE_URL takes it. */
  url: string;
  /** Requests answered so far. */
  requests: number;
  close: () => Promise<void>;
}

/**
 * A CoinGecko-style `simple/price` source on 127.0.0.1 quoting fixed prices; `hang: true` never answers.
 * @example const prices = await startPriceServer({ bitcoin: { usd: 97000, usd_24h_change: -1.234 } });
 */
export async function startPriceServer(
  quotes: Record<string, { usd: number; usd_24h_change: number }>,
  { hang = false } = {},
): Promise<LocalPriceServer> {
  const state = { requests: 0 };
  const server = createServer((request, response) => {
    state.requests += 1;
    if (hang) return;
    const ids = new URL(request.url ?? '/', 'http://prices').searchParams.get('ids')?.split(',') ?? [];
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Object.fromEntries(ids.map((id) => [id, quotes[id]]))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v3/simple/price`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
