import { describe, expect, it } from 'vitest';
import { findWallet, isContractAccount, isPhoneBrowser, switchToChain, type Eip1193Provider, type WalletHost } from './wallet.ts';

const provider = (answers: Record<string, unknown>, calls: string[] = []): Eip1193Provider => ({
  request: async ({ method }) => {
    calls.push(method);
    const answer = answers[method];
    if (answer instanceof Error) throw answer;
    return typeof answer === 'function' ? (answer as () => unknown)() : answer;
  },
});

function host(ethereum?: Eip1193Provider, announced?: Eip1193Provider): WalletHost {
  const target = new EventTarget() as WalletHost;
  if (ethereum) target.ethereum = ethereum;
  if (announced) {
    target.addEventListener('eip6963:requestProvider', () =>
      target.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: { info: { name: 'Announced' }, provider: announced } })));
  }
  return target;
}

describe('findWallet', () => {
  it('prefers a wallet announced by EIP-6963, then window.ethereum, else none', async () => {
    const injected = provider({});
    const announced = provider({});
    expect(await findWallet(host(injected, announced), 20)).toEqual({ provider: announced, name: 'Announced' });
    expect(await findWallet(host(injected), 20)).toEqual({ provider: injected, name: 'Browser wallet' });
    expect(await findWallet(host(), 20)).toBeNull();
  });
});

describe('switchToChain', () => {
  it('does nothing on the right chain, switches, and adds Base Sepolia when the wallet does not know it', async () => {
    const calls: string[] = [];
    await switchToChain(provider({ eth_chainId: '0x14a34' }, calls), 84532);
    expect(calls).toEqual(['eth_chainId']);

    let chain = '0x1';
    const unknown = Object.assign(new Error('Unrecognized chain ID'), { code: 4902 });
    const adding: string[] = [];
    await switchToChain(provider({ eth_chainId: () => chain, wallet_switchEthereumChain: unknown, wallet_addEthereumChain: () => (chain = '0x14a34', null) }, adding), 84532);
    expect(adding).toEqual(['eth_chainId', 'wallet_switchEthereumChain', 'wallet_addEthereumChain', 'eth_chainId']);

    const stuck = provider({ eth_chainId: '0x1', wallet_switchEthereumChain: null });
    await expect(switchToChain(stuck, 84532)).rejects.toThrow(/still on chain 1/);
  });
});

describe('isContractAccount and isPhoneBrowser', () => {
  it('tells a smart-contract account from a regular key (an EIP-7702 delegation counts as a key)', async () => {
    expect(await isContractAccount(provider({ eth_getCode: '0x' }), '0x0000000000000000000000000000000000000001')).toBe(false);
    expect(await isContractAccount(provider({ eth_getCode: '0x6080604052' }), '0x0000000000000000000000000000000000000001')).toBe(true);
    expect(await isContractAccount(provider({ eth_getCode: `0xef0100${'11'.repeat(20)}` }), '0x0000000000000000000000000000000000000001')).toBe(false);
    expect(await isContractAccount(provider({ eth_getCode: new Error('unsupported') }), '0x0000000000000000000000000000000000000001')).toBe(false);
  });

  it('recognises a phone browser', () => {
    expect(isPhoneBrowser('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148')).toBe(true);
    expect(isPhoneBrowser('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36')).toBe(true);
    expect(isPhoneBrowser('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36')).toBe(false);
  });
});
