import { baseSepolia } from 'viem/chains';
import { numberToHex, type Address } from 'viem';

/** What the page needs of a browser wallet: EIP-1193 `request`. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

export interface FoundWallet {
  provider: Eip1193Provider;
  name: string;
}

/** The window, as far as finding a wallet goes. */
export interface WalletHost extends EventTarget {
  ethereum?: Eip1193Provider;
}

/** How long to wait for EIP-6963 announcements before falling back to `window.ethereum`. */
export const ANNOUNCE_WAIT_MS = 300;

/**
 * The browser wallet: the first one announcing itself by EIP-6963, else the injected `window.ethereum`, else null.
 * @example const wallet = await findWallet(window);
 */
export function findWallet(host: WalletHost, waitMs = ANNOUNCE_WAIT_MS): Promise<FoundWallet | null> {
  return new Promise((resolve) => {
    const onAnnounce = (event: Event) => {
      const detail = (event as CustomEvent<{ info?: { name?: string }; provider?: Eip1193Provider }>).detail;
      if (!detail?.provider) return;
      finish({ provider: detail.provider, name: detail.info?.name || 'Browser wallet' });
    };
    const timer = setTimeout(() => finish(host.ethereum ? { provider: host.ethereum, name: 'Browser wallet' } : null), waitMs);
    function finish(wallet: FoundWallet | null) {
      clearTimeout(timer);
      host.removeEventListener('eip6963:announceProvider', onAnnounce);
      resolve(wallet);
    }
    host.addEventListener('eip6963:announceProvider', onAnnounce);
    host.dispatchEvent(new Event('eip6963:requestProvider'));
  });
}

/**
 * Whether the browser is a phone's (where, without an injected wallet, it is a phone's ordinary browser).
 * @example isPhoneBrowser('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) ...') // true
 */
export function isPhoneBrowser(userAgent: string): boolean {
  return /Android|iPhone|iPad|iPod|Mobile/i.test(userAgent);
}

/**
 * Asks the wallet for its account.
 * @example const account = await connectAccount(wallet.provider);
 */
export async function connectAccount(provider: Eip1193Provider): Promise<Address> {
  const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as Address[];
  const [account] = accounts;
  if (!account) throw new Error('The wallet shared no account.');
  return account;
}

/**
 * Switches the wallet to the chain, adding Base Sepolia first when the wallet does not know it (error 4902).
 * @example await switchToChain(wallet.provider, 84532);
 */
export async function switchToChain(provider: Eip1193Provider, chainId: number): Promise<void> {
  const current = Number(await provider.request({ method: 'eth_chainId' }));
  if (current === chainId) return;
  try {
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: numberToHex(chainId) }] });
  } catch (error) {
    if (!isUnknownChain(error) || chainId !== baseSepolia.id) throw error;
    await provider.request({
      method: 'wallet_addEthereumChain',
      params: [{
        chainId: numberToHex(baseSepolia.id),
        chainName: baseSepolia.name,
        nativeCurrency: baseSepolia.nativeCurrency,
        rpcUrls: baseSepolia.rpcUrls.default.http,
        blockExplorerUrls: [baseSepolia.blockExplorers.default.url],
      }],
    });
  }
  const switched = Number(await provider.request({ method: 'eth_chainId' }));
  if (switched !== chainId) throw new Error(`The wallet is still on chain ${switched}; switch it to Base Sepolia (${chainId}) and try again.`);
}

/**
 * Whether the account is a smart contract (not a regular key), read through the wallet. An EIP-7702 delegated
 * key still signs as a regular key; a wallet that cannot answer is taken for a regular key.
 * @example if (await isContractAccount(wallet.provider, account)) showNotYetSupported();
 */
export async function isContractAccount(provider: Eip1193Provider, account: Address): Promise<boolean> {
  const code = await provider.request({ method: 'eth_getCode', params: [account, 'latest'] }).catch(() => '0x');
  return typeof code === 'string' && code !== '0x' && code !== '0x0' && !code.toLowerCase().startsWith('0xef0100');
}

/** Whether a wallet error says the user declined (EIP-1193 code 4001). */
export function isUserRejection(error: unknown): boolean {
  return errorCode(error) === 4001;
}

function isUnknownChain(error: unknown): boolean {
  return errorCode(error) === 4902;
}

function errorCode(error: unknown): number | undefined {
  const value = error as { code?: number; data?: { originalError?: { code?: number } } } | undefined;
  return value?.code ?? value?.data?.originalError?.code;
}
