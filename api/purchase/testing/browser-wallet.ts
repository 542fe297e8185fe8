import type { BrowserContext } from 'playwright-core';
import { numberToHex, type Hex, type LocalAccount, type TypedDataDefinition } from 'viem';
import type { LocalChain } from './chain.ts';

export interface BrowserWalletOptions {
  /** The chain the wallet starts on; it does not know Base Sepolia until the page adds it. */
  startChainId?: number;
  /** Answer eth_getCode with contract code, as a smart-contract account would. */
  contractAccount?: boolean;
}

export interface BrowserWallet {
  /** Every JSON-RPC method the page asked for, in order. */
  calls: string[];
}

/**
 * Injects an EIP-1193 wallet into every page of the context, announced by EIP-6963, backed by a viem local account
 * made in the test: it signs `eth_signTypedData_v4` with that key and reads code from the local chain.
 * @example const wallet = await installBrowserWallet(context, owner, chain);
 */
export async function installBrowserWallet(
  context: BrowserContext,
  account: LocalAccount,
  chain: LocalChain,
  { startChainId = 1, contractAccount = false }: BrowserWalletOptions = {},
): Promise<BrowserWallet> {
  const calls: string[] = [];
  const knownChains = new Set([startChainId]);
  let chainId = startChainId;

  const handle = async (method: string, params: unknown[]): Promise<unknown> => {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [account.address];
      case 'eth_chainId':
        return numberToHex(chainId);
      case 'wallet_switchEthereumChain': {
        const wanted = Number((params[0] as { chainId: string }).chainId);
        if (!knownChains.has(wanted)) throw { code: 4902, message: `Unrecognized chain ID ${numberToHex(wanted)}` };
        chainId = wanted;
        return null;
      }
      case 'wallet_addEthereumChain':
        chainId = Number((params[0] as { chainId: string }).chainId);
        knownChains.add(chainId);
        return null;
      case 'eth_getCode':
        return contractAccount ? '0x6080604052' : chain.provider.request({ method: 'eth_getCode', params: params as [Hex, 'latest'] });
      case 'eth_signTypedData_v4': {
        const [from, json] = params as [string, string];
        if (from.toLowerCase() !== account.address.toLowerCase()) throw { code: 4100, message: 'Unknown account' };
        const { types, ...typedData } = JSON.parse(json) as TypedDataDefinition & { types: Record<string, unknown> };
        const { EIP712Domain: _, ...messageTypes } = types;
        return account.signTypedData({ ...typedData, types: messageTypes } as TypedDataDefinition);
      }
      default:
        throw { code: 4200, message: `The test wallet does not support ${method}` };
    }
  };

  await context.exposeFunction('__testWalletRequest', async (method: string, params: unknown[]) => {
    calls.push(method);
    try {
      return { result: await handle(method, params ?? []) };
    } catch (error) {
      const { code = -32603, message = String(error) } = error as { code?: number; message?: string };
      return { error: { code, message } };
    }
  });
  await context.addInitScript(() => {
    const bridge = (window as unknown as { __testWalletRequest: (m: string, p: unknown) => Promise<{ result?: unknown; error?: { code: number; message: string } }> }).__testWalletRequest;
    const provider = {
      request: async ({ method, params }: { method: string; params?: unknown }) => {
        const answer = await bridge(method, params ?? []);
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
      on: () => provider,
      removeListener: () => provider,
    };
    const info = { uuid: 'c7b5a9e2-3f41-4e0e-9d1a-6a4c2f1b8e00', name: 'Test Wallet', icon: 'data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%2F%3E', rdns: 'test.wallet' };
    const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  });
  return { calls };
}
