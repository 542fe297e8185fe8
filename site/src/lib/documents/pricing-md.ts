import type { IndexDocument } from './document.ts';

/**
 * `/pricing.md` and the page `/pricing`: reading the index is free; the purchase preview moves test tokens only. The
 * demo prices are those of the spec's catalog table (the live catalog at /api/v1/purchase is authoritative).
 */
const DEMO_PRICES: ReadonlyArray<[id: string, usd: string]> = [
  ['index-demo-market-data', '0.01'],
  ['index-demo-wallet-briefing', '0.003'],
  ['index-demo-contract-screening', '0.005'],
  ['index-demo-web-search', '0.003'],
  ['index-demo-whitepaper-extraction', '0.005'],
  ['index-demo-specialist-research', '0.02'],
  ['index-demo-image-creation', '0.02'],
  ['index-demo-audio-transcription', '0.01'],
  ['index-demo-product-search', '0.003'],
  ['index-demo-job-search', '0.003'],
  ['index-demo-website-performance', '0.005'],
];

/** @example toPricingDocument({ siteUrl: 'https://index.example', stagingUrl: 'https://index.example' }).title // 'Pricing' */
export function toPricingDocument({ siteUrl, stagingUrl }: { siteUrl: string; stagingUrl: string }): IndexDocument {
  return {
    title: 'Pricing',
    markdownPath: '/pricing.md',
    blocks: [
      { kind: 'heading', text: 'Reading the index is free' },
      {
        kind: 'paragraph',
        text: `Every read is free and open: no account, no API key, no payment. That covers the API
(\`${siteUrl}/api/v1/services\`, \`/api/v1/services/{id}\`, \`/api/v1/services/batch\`, \`/api/v1/stats\`), the
listing pages (\`/services/{id}\`), the JSON snapshots (\`/snapshots/services.json\`) and submitting a service
(\`POST /api/v1/submit\`).`,
      },
      {
        kind: 'list',
        items: [
          `Rate limit: 300 requests per minute per client (soft). Every response carries \`RateLimit-Limit\` and
  \`RateLimit-Policy\`; over the limit you get HTTP 429 with \`Retry-After\`.`,
          `Caching: reads are cached for 300 seconds at the edge, so polling faster returns the same data. For the whole
  index in one request, fetch \`${siteUrl}/snapshots/services.json\`.`,
          `The services listed here charge for themselves, in their own terms (shown on each listing page). This index
  takes no fee and never sits between you and a service.`,
        ],
      },
      { kind: 'heading', text: 'The purchase preview is testnet only' },
      {
        kind: 'paragraph',
        text: `The purchase preview at \`${stagingUrl}/api/v1/purchase\` sells demo services for **test USDC on Base Sepolia**
(\`eip155:84532\`, 6 decimals). No real money moves. An agent may ask for a purchase; only the owner pays, by
approving it with their own browser wallet. The index never holds a key or funds, and no gas token is needed.`,
      },
      {
        kind: 'table',
        head: ['Demo service', 'Price', 'Atomic units'],
        rows: DEMO_PRICES.map(([id, usd]) => [`\`${id}\``, `${usd} test USDC`, String(Math.round(Number(usd) * 1e6))]),
      },
      {
        kind: 'paragraph',
        text: `\`index-demo-market-data\` calls a public price source; the others return prepared, simulated output.
How to buy, step by step: \`${siteUrl}/docs/purchase.md\`.`,
      },
    ],
  };
}
