import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_SERVICES } from '../purchase/testing/spec-table.ts';
import { startPriceServer, type LocalPriceServer } from '../purchase/testing/price-server.ts';
import { startPaymentStack, TEST_PAY_TO, type PaymentStack } from '../purchase/testing/stack.ts';
import { createTestApp } from '../testing.ts';

/** An agent paying a demo service itself with the x402 reference client, on the local chain. */
describe('demo services paid with x402 v2 on a local chain', () => {
  let stack: PaymentStack;
  let prices: LocalPriceServer;
  let agent: PrivateKeyAccount;
  let app: ReturnType<typeof createTestApp>;
  let client: x402HTTPClient;
  beforeAll(async () => {
    stack = await startPaymentStack();
    prices = await startPriceServer({ bitcoin: { usd: 97_000, usd_24h_change: 1.5 }, ethereum: { usd: 3_500, usd_24h_change: -0.5 } });
    agent = privateKeyToAccount(generatePrivateKey());
    await stack.chain.fund(agent.address, 1_000_000n);
    app = createTestApp([], { now: () => new Date(), config: { ...stack.config, priceSourceUrl: prices.url } });
    client = new x402HTTPClient(new x402Client().register('eip155:*', new ExactEvmScheme(agent)).setSpendControls(false));
  });
  afterAll(async () => {
    await stack.close();
    await prices.close();
  });

  async function pay(url: string) {
    const unpaid = await app.request(url);
    expect(unpaid.status).toBe(402);
    const challenge = client.getPaymentRequiredResponse((name) => unpaid.headers.get(name), unpaid.json);
    const payload = await client.createPaymentPayload(challenge);
    return { payload, headers: client.encodePaymentSignatureHeader(payload) };
  }

  it.each(SPEC_SERVICES)('$id serves its answer once paid, settling exactly its price on chain', async (spec) => {
    const params = new URLSearchParams(spec.params.filter((p) => p.required).map((p) => [p.name, String(p.values[0])]));
    const url = `${spec.path}?${params}`;
    const before = { agent: await stack.chain.balanceOf(agent.address), payTo: await stack.chain.balanceOf(TEST_PAY_TO) };
    const { headers } = await pay(url);
    const paid = await app.request(url, { headers });
    expect(paid.status).toBe(200);
    const settlement = client.getPaymentSettleResponse((name) => paid.headers.get(name));
    expect(settlement).toMatchObject({ success: true, network: 'eip155:84532', payer: agent.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    for (const field of spec.fields.filter((f) => f !== 'transcript')) expect(paid.json).toHaveProperty(field);
    if (spec.id === 'index-demo-market-data') expect(paid.json).toMatchObject({ asset: 'BTC', price_usd: 97_000, change_24h_pct: 1.5 });
    expect(await stack.chain.balanceOf(agent.address)).toBe(before.agent - BigInt(spec.atomic));
    expect(await stack.chain.balanceOf(TEST_PAY_TO)).toBe(before.payTo + BigInt(spec.atomic));
  });

  it('answers a payment for other terms, a reused payment and a garbled header with 402, a fresh challenge and the reason', async () => {
    const url = '/api/demo/services/web-search?query_id=x402-facilitators';
    const { payload, headers } = await pay(url);
    const settles = stack.facilitator.calls.settle;
    const cheaper = { ...payload, accepted: { ...payload.accepted, amount: '1' } };
    const cases: [Record<string, string>, RegExp][] = [
      [client.encodePaymentSignatureHeader(cheaper), /other terms/],
      [{ 'payment-signature': 'not base64!' }, /not base64/],
    ];
    for (const [badHeaders, reason] of cases) {
      const refused = await app.request(url, { headers: badHeaders });
      expect(refused.status).toBe(402);
      expect(decodePaymentRequiredHeader(refused.headers.get('payment-required') ?? '')).toMatchObject({ error: expect.stringMatching(reason), accepts: [expect.any(Object)] });
    }
    expect(stack.facilitator.calls.settle).toBe(settles);
    expect((await app.request(url, { headers })).status).toBe(200);
    const replay = await app.request(url, { headers });
    expect(replay.status).toBe(402);
    expect(decodePaymentRequiredHeader(replay.headers.get('payment-required') ?? '').error).toMatch(/already used/);
  });
});
