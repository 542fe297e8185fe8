import { chromium, type Browser } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Purchase } from '../../../../api/purchase/schemas.ts';
import { installBrowserWallet, type BrowserWalletOptions } from '../../../../api/purchase/testing/browser-wallet.ts';
import { startPaymentStack, TEST_PAY_TO, type PaymentStack } from '../../../../api/purchase/testing/stack.ts';
import { createTestApp } from '../../../../api/testing.ts';
import { ensureCompiled } from '../../../build/compile.ts';
import { renderPurchasePage } from '../../../build/site.ts';
import { serveApp } from '../../../../api/app.ts';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PHONE_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36';

/** End to end: an agent over HTTP, the owner on the real approval page in Chromium with a wallet, a local chain. */
describe('the approval page in a real browser', () => {
  let stack: PaymentStack;
  let browser: Browser;
  let server: ReturnType<typeof serveApp>;
  let origin: string;

  beforeAll(async () => {
    const [compiled, started] = await Promise.all([ensureCompiled(), startPaymentStack()]);
    stack = started;
    const site = { siteUrl: 'http://index.test', stagingUrl: 'http://index.test' };
    const { app } = createTestApp([], {
      now: () => new Date(),
      config: stack.config,
      site: { distDir: compiled.clientDir, renderPurchase: (purchase) => renderPurchasePage(compiled, site, purchase) },
    });
    server = serveApp(app, { hostname: '127.0.0.1', port: 0 });
    await server.ready();
    origin = new URL(server.url!).origin;
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close(true);
    await stack?.close();
  });

  const agentCreates = async (body: object) => {
    const response = await fetch(`${origin}/api/v1/purchases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return Purchase.parse(await response.json());
  };
  const agentReads = async (id: string) => Purchase.parse(await (await fetch(`${origin}/api/v1/purchases/${id}`)).json());

  async function openApprovalPage(approveUrl: string, wallet: BrowserWalletOptions | null, userAgent?: string) {
    const owner = privateKeyToAccount(generatePrivateKey());
    const context = await browser.newContext(userAgent ? { userAgent } : {});
    const installed = wallet ? await installBrowserWallet(context, owner, stack.chain, wallet) : null;
    const page = await context.newPage();
    await page.goto(approveUrl);
    await page.locator('#approve').waitFor();
    return { owner, context, page, calls: installed?.calls ?? [] };
  }

  it('an agent asks, the owner approves in the wallet on the page, the agent reads the completed result', async () => {
    const purchase = await agentCreates({ service_id: 'index-demo-image-creation', params: { brief_id: 'social-card', style: 'outline' } });
    expect(purchase.approve_url).toBe(`${origin}/purchase/${purchase.id}`);
    const { owner, context, page, calls } = await openApprovalPage(purchase.approve_url, { startChainId: 1 });
    await stack.chain.fund(owner.address, 50_000n);

    const facts = await page.locator('#facts').innerText();
    for (const shown of ['Image creation (demo)', 'brief_id = social-card, style = outline', '0.02 USDC (20000 atomic units)', purchase.pay_to, 'Base Sepolia', 'eip155:84532']) {
      expect(facts).toContain(shown);
    }
    await expect(page.locator('#notice').innerText()).resolves.toMatch(/test USDC on Base Sepolia/);

    await page.locator('#approve').click();
    await page.locator('#result').waitFor({ state: 'visible', timeout: 15_000 });
    expect(await page.locator('#status').innerText()).toMatch(/^Paid\./);
    const completed = await agentReads(purchase.id);
    expect(completed).toMatchObject({ status: 'completed', payer: owner.address, response: { asset_url: '/demo/social-card-outline.svg', variant: 'outline' } });
    expect(await page.locator('#tx').innerText()).toBe(completed.transaction);
    expect(await page.locator('#tx').getAttribute('href')).toBe(`https://sepolia.basescan.org/tx/${completed.transaction}`);
    // The result shows as soon as it is read; the image may still be loading then.
    const loadedWidth = (image: HTMLImageElement) =>
      image.complete
        ? image.naturalWidth
        : new Promise<number>((resolve) => {
            image.addEventListener('load', () => resolve(image.naturalWidth), { once: true });
            image.addEventListener('error', () => resolve(0), { once: true });
          });
    expect(await page.locator('#image').evaluate(loadedWidth)).toBe(1200);

    expect(calls).toEqual(expect.arrayContaining(['eth_requestAccounts', 'wallet_switchEthereumChain', 'wallet_addEthereumChain', 'eth_getCode', 'eth_signTypedData_v4']));
    expect(await stack.chain.balanceOf(owner.address)).toBe(30_000n);
    expect(await stack.chain.balanceOf(TEST_PAY_TO)).toBeGreaterThanOrEqual(20_000n);
    expect(JSON.stringify(completed)).not.toMatch(/signature|authorization/i);
    await context.close();
  });

  it("gives a smart-contract wallet and a phone's ordinary browser the 'not yet supported' message, paying nothing", async () => {
    const first = await agentCreates({ service_id: 'index-demo-market-data', params: { asset: 'ETH' } });
    const contract = await openApprovalPage(first.approve_url, { startChainId: 84532, contractAccount: true });
    await contract.page.locator('#approve').click();
    await expect(contract.page.locator('#problem').filter({ hasText: /Smart-contract wallets are not yet supported/ }).waitFor()).resolves.toBeUndefined();
    expect(contract.calls).not.toContain('eth_signTypedData_v4');
    await contract.context.close();

    const phone = await openApprovalPage(first.approve_url, null, PHONE_UA);
    await phone.page.locator('#approve').click();
    await expect(phone.page.locator('#problem').filter({ hasText: /phone's ordinary browser is not yet supported/ }).waitFor()).resolves.toBeUndefined();
    await phone.context.close();
    expect((await agentReads(first.id)).status).toBe('awaiting_approval');
  });
});
