import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, custom, publicActions } from 'viem';
import { localChain, type LocalChain } from './chain.ts';

export interface LocalFacilitator {
  /** Base URL, as FACILITATOR_URL takes it (`{url}/verify`, `{url}/settle`, `{url}/supported`). */
  url: string;
  /** How many times each operation was called. */
  calls: { verify: number; settle: number };
  close: () => Promise<void>;
}

/**
 * An x402 facilitator on 127.0.0.1 running `@x402/evm`'s exact-scheme facilitator logic against the local chain:
 * it verifies signatures and simulates on chain, and settles by sending `transferWithAuthorization`, paying gas.
 * @example const facilitator = await startLocalFacilitator(chain); const config = { facilitatorUrl: facilitator.url };
 */
export async function startLocalFacilitator(chain: LocalChain): Promise<LocalFacilitator> {
  const client = createWalletClient({ account: chain.facilitatorAccount, chain: localChain, transport: custom(chain.provider) }).extend(
    publicActions,
  );
  const signer = toFacilitatorEvmSigner({
    address: chain.facilitatorAccount.address,
    readContract: (args) => client.readContract(args as never),
    verifyTypedData: (args) => client.verifyTypedData(args as never),
    writeContract: (args) => client.writeContract(args as never),
    sendTransaction: (args) => client.sendTransaction(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    getCode: (args) => client.getCode(args),
  });
  const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: `eip155:${localChain.id}` });
  const calls = { verify: 0, settle: 0 };

  const server: Server = createServer(async (request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    try {
      const path = new URL(request.url ?? '/', 'http://facilitator').pathname;
      if (request.method === 'GET' && path === '/supported') return send(200, facilitator.getSupported());
      if (request.method === 'POST' && (path === '/verify' || path === '/settle')) {
        const { paymentPayload, paymentRequirements } = JSON.parse(await readText(request));
        if (path === '/verify') {
          calls.verify += 1;
          return send(200, await facilitator.verify(paymentPayload, paymentRequirements));
        }
        calls.settle += 1;
        return send(200, await facilitator.settle(paymentPayload, paymentRequirements));
      }
      send(404, { error: 'not found' });
    } catch (error) {
      send(500, { error: error instanceof Error ? error.message : String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
