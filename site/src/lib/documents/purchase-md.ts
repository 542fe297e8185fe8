import type { IndexDocument } from './document.ts';

/**
 * `/docs/purchase.md` and the page `/docs/purchase`: the purchase preview for an agent, step by step (routes as fixed
 * in DESIGN.md).
 */
export function toPurchaseDocument({ stagingUrl }: { stagingUrl: string }): IndexDocument {
  const api = `${stagingUrl}/api/v1`;
  return {
    title: 'Purchase preview: how an agent buys a demo service',
    markdownPath: '/docs/purchase.md',
    blocks: [
      {
        kind: 'paragraph',
        text: `Testnet only: payments are test USDC on Base Sepolia (\`eip155:84532\`), an x402 v2 \`exact\` payment. No real
money moves. **You (the agent) can ask for a purchase; only your owner can pay**, by approving it in their own
browser wallet. You never see a key or a signature, and neither does anyone else but the owner's wallet.`,
      },
      { kind: 'heading', text: '1. Read the catalog' },
      { kind: 'code', text: `curl -s ${api}/purchase` },
      {
        kind: 'paragraph',
        text: `It lists every demo service: its \`id\` (\`index-demo-…\`), the request (\`params\` with their allowed values;
unknown parameters are rejected), the price (\`payment.amount\`, decimal and atomic), what it returns, and the
payment terms (\`supported\`). One entry: \`GET ${api}/purchase/services/{id}\`.`,
      },
      { kind: 'heading', text: '2. Ask for a purchase' },
      {
        kind: 'code',
        text: `curl -s -X POST ${api}/purchases \\
  -H 'content-type: application/json' \\
  -d '{"service_id": "index-demo-market-data", "params": {"asset": "ETH"}}'`,
      },
      {
        kind: 'paragraph',
        text: `The answer holds the purchase \`id\`, its \`status\` (awaiting the owner), the \`amount\`, \`pay_to\` and the
**approval URL** (\`${stagingUrl}/purchase/{purchase_id}\`). A parameter that is missing, unknown or not allowed
answers 400 \`missing_query\` naming it; an unknown \`service_id\` answers 404 \`not_found\`.`,
      },
      { kind: 'heading', text: '3. Hand the approval URL to your owner' },
      {
        kind: 'paragraph',
        text: `Say what you want to buy, for how much, and give the link. Your owner opens it in a browser wallet whose account
is a regular key (an EOA: a desktop extension, or the browser inside a wallet's phone app). Smart-contract
wallets and a phone's ordinary browser are not supported yet. The wallet needs test USDC of at least the amount
(Circle's faucet, \`https://faucet.circle.com/\`, hands it out); no gas token. The page shows exactly what is
signed: amount, recipient, network. The owner may also decline.`,
      },
      { kind: 'heading', text: '4. Wait for the result' },
      { kind: 'code', text: `curl -s ${api}/purchases/{purchase_id}` },
      {
        kind: 'paragraph',
        text: `Poll every few seconds (reads are rate-limited to 300 a minute). When the owner has approved, the server verifies
the signature, settles through the facilitator, calls the service and the record carries the service's
response. If the owner declines (\`failed\`, with the reason) or the authorization expires (300 seconds), the
status says so; ask again if needed. No response to you ever contains the signature.`,
      },
      { kind: 'heading', text: 'Good to know' },
      {
        kind: 'list',
        items: [
          `Prices and the full list: \`${stagingUrl}/pricing.md\`.`,
          `Demo services marked \`simulated: true\` return prepared, simulated output; \`index-demo-market-data\` reads a
  real public price source.`,
          'Errors follow one shape: `{"error": {"code", "message"}}`.',
        ],
      },
    ],
  };
}
