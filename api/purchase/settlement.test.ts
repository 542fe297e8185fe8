import { getAddress, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorResponse } from '../../domain/schemas.ts';
import { createTestApp, postJson } from '../testing.ts';
import { Purchase } from './schemas.ts';
import { signApproval, type SignApprovalOptions } from './testing/owner.ts';
import { startPaymentStack, TEST_PAY_TO, type PaymentStack } from './testing/stack.ts';

const RESEARCH = { service_id: 'index-demo-specialist-research', params: { topic_id: 'agent-payment-rails', depth: 'brief' } };
const PRICE = 20_000n;

describe('purchases settled on a local chain through a local x402 facilitator', () => {
  let stack: PaymentStack;
  beforeAll(async () => {
    stack = await startPaymentStack();
  });
  afterAll(() => stack.close());

  /** The app as deployed, with a clock a test can move, and every agent-facing text it answered. */
  function createPurchaseApp(config: Partial<PaymentStack['config']> = {}) {
    const clock = { offsetMs: 0 };
    const { request } = createTestApp([], { now: () => new Date(Date.now() + clock.offsetMs), config: { ...stack.config, ...config } });
    const seen: string[] = [];
    const agent = async (path: string, init?: RequestInit) => {
      const response = await request(path, init);
      seen.push(response.text, JSON.stringify([...response.headers]));
      return response;
    };
    const create = async (body: object = RESEARCH) => Purchase.parse((await agent('/api/v1/purchases', postJson(body))).json);
    const approve = (purchase: Purchase, approval: object) => request(`/api/v1/purchases/${purchase.id}/approval`, postJson(approval));
    return { clock, agent, create, approve, seen };
  }

  async function newOwner(funds = 1_000_000n): Promise<LocalAccount> {
    const owner = privateKeyToAccount(generatePrivateKey());
    if (funds > 0n) await stack.chain.fund(owner.address, funds);
    return owner;
  }

  const balances = async (owner: LocalAccount) => ({
    payer: await stack.chain.balanceOf(owner.address),
    payTo: await stack.chain.balanceOf(TEST_PAY_TO),
  });

  /** Signature material an agent must never see: the signature, its r and s, and the authorization nonce. */
  function signatureMaterial(approval: { signature: string; authorization: { nonce: string } }): string[] {
    const signature = approval.signature.slice(2).toLowerCase();
    return [signature, signature.slice(0, 64), signature.slice(64, 128), approval.authorization.nonce.slice(2).toLowerCase()];
  }

  it('an agent asks, the owner signs, the service is paid on chain and the agent reads the answer; no signature leaks', async () => {
    const owner = await newOwner();
    const { agent, create, approve, seen } = createPurchaseApp();
    const purchase = await create();
    expect(purchase).toMatchObject({ status: 'awaiting_approval', amount: { atomic: String(PRICE) }, pay_to: getAddress(TEST_PAY_TO) });
    const before = await balances(owner);
    const approval = await signApproval(owner, purchase);

    const approved = await approve(purchase, approval);
    expect(approved.status).toBe(200);
    const completed = Purchase.parse(approved.json);
    expect(completed).toMatchObject({ status: 'completed', reason: null, payer: owner.address });
    expect(completed.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(completed.explorer_url).toBe(`https://sepolia.basescan.org/tx/${completed.transaction}`);
    const receipt = await stack.chain.publicClient.getTransactionReceipt({ hash: completed.transaction as Hex });
    expect(receipt.status).toBe('success');

    const after = await balances(owner);
    expect(before.payer - after.payer).toBe(PRICE);
    expect(after.payTo - before.payTo).toBe(PRICE);

    const read = Purchase.parse((await agent(`/api/v1/purchases/${purchase.id}`)).json);
    expect(read).toEqual(completed);
    expect(read.response).toMatchObject({ topic: { id: 'agent-payment-rails' }, depth: 'brief' });
    expect((read.response as { findings: unknown[] }).findings).toHaveLength(3);

    const agentSaw = seen.join('\n').toLowerCase();
    for (const material of signatureMaterial(approval)) expect(agentSaw).not.toContain(material);
    for (const material of signatureMaterial(approval)) expect(approved.text.toLowerCase()).not.toContain(material);
    expect(agentSaw).not.toMatch(/signature"|authorization"/);
  });

  const refusals: [string, (owner: LocalAccount) => SignApprovalOptions, RegExp][] = [
    ['a tampered amount', () => ({ authorization: { value: '19999' } }), /not the amount shown/],
    ['a tampered recipient', () => ({ authorization: { to: '0x000000000000000000000000000000000000bEEF' } }), /not the recipient shown/],
    ['another chain', () => ({ domain: { chainId: 8453 } }), /signed for chain 8453/],
    ['another token domain name', () => ({ domain: { name: 'USD Coin' } }), /token domain "USD Coin"/],
    ['another token contract', () => ({ domain: { verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' } }), /signed for token contract/],
    ['an expired validity window', () => ({ nowSeconds: Math.floor(Date.now() / 1000) - 1_000 }), /has expired/],
    ['a window that has not started', () => ({ authorization: { validAfter: String(Math.floor(Date.now() / 1000) + 600) } }), /not valid yet/],
    ['a signature from another account', () => ({ signer: privateKeyToAccount(generatePrivateKey()) }), /was not made by 0x/],
  ];

  it.each(refusals)('refuses %s with its reason, and settles nothing', async (_, options, reason) => {
    const owner = await newOwner();
    const { create, approve, agent } = createPurchaseApp();
    const purchase = await create();
    const before = await balances(owner);
    const settles = stack.facilitator.calls.settle;
    const refused = await approve(purchase, await signApproval(owner, purchase, options(owner)));
    expect(refused.status).toBe(400);
    expect(ErrorResponse.parse(refused.json).error).toMatchObject({ code: 'invalid_json', message: expect.stringMatching(reason) });
    expect(Purchase.parse((await agent(`/api/v1/purchases/${purchase.id}`)).json).status).toBe('awaiting_approval');
    expect(stack.facilitator.calls.settle).toBe(settles);
    expect(await balances(owner)).toEqual(before);
  });

  it('refuses a smart-contract wallet signature as not yet supported', async () => {
    const owner = await newOwner(0n);
    const { create, approve } = createPurchaseApp();
    const purchase = await create();
    const approval = await signApproval(owner, purchase);
    const refused = await approve(purchase, { ...approval, signature: `${approval.signature}${'00'.repeat(32)}` });
    expect(ErrorResponse.parse(refused.json).error.message).toMatch(/Smart-contract wallets are not yet supported/);
  });

  it('refuses a second approval, a reused nonce and an expired purchase, settling nothing more', async () => {
    const owner = await newOwner();
    const { create, approve, clock, agent } = createPurchaseApp();
    const first = await create();
    const approval = await signApproval(owner, first);
    expect(Purchase.parse((await approve(first, approval)).json).status).toBe('completed');
    const settled = await balances(owner);
    const settles = stack.facilitator.calls.settle;

    const again = await approve(first, await signApproval(owner, first));
    expect(again.status).toBe(409);
    expect(ErrorResponse.parse(again.json).error.message).toMatch(/already approved/);

    const second = await create();
    const reused = await approve(second, await signApproval(owner, second, { authorization: { nonce: approval.authorization.nonce } }));
    expect(reused.status).toBe(400);
    expect(ErrorResponse.parse(reused.json).error.message).toMatch(/nonce was already used/);

    const third = await create();
    clock.offsetMs = 301_000;
    const late = await approve(third, await signApproval(owner, third, { nowSeconds: Math.floor(Date.now() / 1000) + 301 }));
    expect(late.status).toBe(409);
    expect(ErrorResponse.parse(late.json).error.message).toMatch(/expired/);
    expect(Purchase.parse((await agent(`/api/v1/purchases/${third.id}`)).json).status).toBe('expired');

    expect(stack.facilitator.calls.settle).toBe(settles);
    expect(await balances(owner)).toEqual(settled);
  });

  it('fails with the facilitator reason when the wallet holds too little test USDC', async () => {
    const owner = await newOwner(PRICE - 1n);
    const { create, approve } = createPurchaseApp();
    const purchase = await create();
    const failed = Purchase.parse((await approve(purchase, await signApproval(owner, purchase))).json);
    expect(failed).toMatchObject({ status: 'failed', transaction: null, response: null });
    expect(failed.reason).toMatch(/does not hold enough test USDC/);
    expect(await stack.chain.balanceOf(owner.address)).toBe(PRICE - 1n);
  });

  it.each([
    ['a closed port', 'http://127.0.0.1:9/facilitator'],
    ['a name that does not resolve', 'http://facilitator.invalid/facilitator'],
  ])('ends failed with a reason a person understands when the facilitator is %s, without hanging', async (_, facilitatorUrl) => {
    const owner = await newOwner();
    const { create, approve, agent } = createPurchaseApp({ facilitatorUrl });
    const purchase = await create();
    const started = performance.now();
    const failed = Purchase.parse((await approve(purchase, await signApproval(owner, purchase))).json);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(/The payment did not go through: the payment facilitator \(.+\) could not be reached .*nothing was paid/);
    expect(Purchase.parse((await agent(`/api/v1/purchases/${purchase.id}`)).json).status).toBe('failed');
    expect(await stack.chain.balanceOf(owner.address)).toBe(1_000_000n);
  });
});
