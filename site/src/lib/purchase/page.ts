import { createClient, custom } from 'viem';
import { signTypedData } from 'viem/actions';
import type { Purchase } from '../../../../api/purchase/schemas.ts';
import { newAuthorization, toAuthorizationDomain, toAuthorizationTypedData, toChainId } from '../../../../api/purchase/typed-data.ts';
import { describeStatus, toPurchaseFacts, toPurchaseId } from './view.ts';
import { connectAccount, findWallet, isContractAccount, isPhoneBrowser, isUserRejection, switchToChain, type WalletHost } from './wallet.ts';

/** While a purchase is settling elsewhere (another tab), the page looks again this often. */
const POLL_MS = 2_000;

const NOT_YET = {
  phone: "A phone's ordinary browser is not yet supported: open this link in the browser inside your wallet app.",
  noWallet: 'No browser wallet found. Install a browser wallet whose account is a regular key (EOA), then reload this page.',
  contract: 'Smart-contract wallets are not yet supported: approve with a browser wallet whose account is a regular key (EOA).',
};

/**
 * The approval page (`/purchase/{id}`): shows what will be paid, finds the wallet (EIP-6963, then
 * `window.ethereum`), switches it to Base Sepolia, asks it to sign the EIP-3009 authorization for exactly the amount
 * and recipient shown, posts it, and shows progress, the transaction and the result. Text only, never markup.
 * @example startApprovalPage(document, window);
 */
export function startApprovalPage(doc: Document, win: Window & WalletHost): void {
  const $ = <T extends HTMLElement>(id: string) => doc.getElementById(id) as T;
  const ui = {
    details: $('purchase'), facts: $('facts'), status: $('status'), decide: $<HTMLFormElement>('decide'),
    approve: $<HTMLButtonElement>('approve'), decline: $<HTMLButtonElement>('decline'),
    progress: $('progress'), problem: $('problem'), result: $('result'), tx: $<HTMLAnchorElement>('tx'),
    answer: $('answer'), image: $<HTMLImageElement>('image'),
  };
  const id = toPurchaseId(win.location.pathname);
  if (!id) return say(ui.problem, 'This address names no purchase. Open the approval link your agent gave you.');
  let current: Purchase;

  const show = (purchase: Purchase) => {
    current = purchase;
    ui.details.hidden = false;
    ui.facts.replaceChildren(...toPurchaseFacts(purchase).flatMap(({ label, value }) => [element(doc, 'dt', label), element(doc, 'dd', value)]));
    say(ui.status, describeStatus(purchase));
    ui.decide.hidden = purchase.status !== 'awaiting_approval';
    ui.approve.hidden = ui.decide.hidden;
    if (purchase.status === 'completed') showResult(purchase);
    if (purchase.status === 'settling') setTimeout(() => void load(), POLL_MS);
  };

  const showResult = (purchase: Purchase) => {
    ui.result.hidden = false;
    ui.tx.textContent = purchase.transaction ?? '';
    ui.tx.href = purchase.explorer_url ?? '#';
    ui.answer.textContent = JSON.stringify(purchase.response, null, 2);
    const image = purchase.response as { asset_url?: unknown; alt_text?: unknown } | null;
    if (typeof image?.asset_url === 'string' && image.asset_url.startsWith('/')) {
      ui.image.src = image.asset_url;
      ui.image.alt = String(image.alt_text ?? '');
      ui.image.hidden = false;
    }
  };

  const load = async () => {
    const response = await fetch(`/api/v1/purchases/${encodeURIComponent(id)}`, { cache: 'no-store' });
    if (response.status === 404) return say(ui.problem, 'No purchase at this address. It may be mistyped; ask your agent for the link again.');
    if (!response.ok) return say(ui.problem, `The purchase could not be loaded (HTTP ${response.status}). Reload to try again.`);
    show((await response.json()) as Purchase);
  };

  /** A problem replaces the progress line: the page never says it is looking for a wallet and found none at once. */
  const fail = (text: string) => {
    say(ui.progress, '');
    say(ui.problem, text);
  };

  const approve = async () => {
    ui.approve.disabled = true;
    say(ui.problem, '');
    try {
      say(ui.progress, 'Looking for a browser wallet…');
      const wallet = await findWallet(win);
      if (!wallet) return fail(isPhoneBrowser(win.navigator.userAgent) ? NOT_YET.phone : NOT_YET.noWallet);
      say(ui.progress, `Connecting to ${wallet.name}…`);
      const account = await connectAccount(wallet.provider);
      const terms = current.payment_requirements;
      say(ui.progress, 'Switching the wallet to Base Sepolia…');
      await switchToChain(wallet.provider, toChainId(terms.network));
      if (await isContractAccount(wallet.provider, account)) return fail(NOT_YET.contract);
      say(ui.progress, `Sign in your wallet: ${current.amount.decimal} ${current.asset.symbol} to ${current.pay_to}.`);
      const authorization = newAuthorization(terms, account, Math.floor(Date.now() / 1000));
      const domain = toAuthorizationDomain(terms);
      const client = createClient({ transport: custom(wallet.provider) });
      const signature = await signTypedData(client, { account, ...toAuthorizationTypedData(domain, authorization) });
      say(ui.progress, 'Signed. Checking the authorization and settling the payment on Base Sepolia…');
      const response = await fetch(`/api/v1/purchases/${encodeURIComponent(current.id)}/approval`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ authorization, signature, domain }),
      });
      const body = (await response.json()) as Purchase | { error: { message: string } };
      if ('error' in body) return fail(body.error.message);
      say(ui.progress, body.status === 'completed' ? 'Done.' : '');
      show(body);
    } catch (error) {
      fail(isUserRejection(error)
        ? 'You declined in the wallet: nothing was signed or paid. You can approve again.'
        : `The wallet could not complete the approval: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    } finally {
      ui.approve.disabled = false;
    }
  };

  /** Declining needs no wallet: the purchase fails, and the agent following it reads that the owner declined. */
  const decline = async () => {
    ui.decline.disabled = true;
    say(ui.problem, '');
    try {
      const response = await fetch(`/api/v1/purchases/${encodeURIComponent(id)}/decline`, { method: 'POST' });
      const body = (await response.json()) as Purchase | { error: { message: string } };
      if ('error' in body) return fail(body.error.message);
      show(body);
    } catch {
      fail('The index could not be reached. Check the connection and try again.');
    } finally {
      ui.decline.disabled = false;
    }
  };

  ui.approve.addEventListener('click', () => void approve());
  ui.decide.addEventListener('submit', (event) => {
    event.preventDefault();
    void decline();
  });
  // The server rendered the purchase: reading it again only brings the page up to date, without a word that shifts it.
  load().catch(() => say(ui.problem, 'The purchase could not be loaded. Check the connection and reload.'));
}

function say(target: HTMLElement, text: string): void {
  target.textContent = text;
}

function element(doc: Document, tag: string, text: string): HTMLElement {
  const node = doc.createElement(tag);
  node.textContent = text;
  return node;
}
