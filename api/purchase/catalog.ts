import { getAddress } from 'viem';
import type { Config } from '../config.ts';
import type { DemoService } from '../demo/service.ts';
import { listDemoParams, toQueryString } from '../demo/query.ts';
import { DEMO_SERVICES } from '../demo/registry.ts';
import { DEMO_PAYMENT, toAssetTerms, toAtomic } from '../demo/terms.ts';
import type { CatalogService, PurchaseCatalog } from './schemas.ts';

type Terms = Pick<Config, 'payToAddress' | 'usdcAddress'>;

export const CATALOG_NOTICE =
  'Testnet preview: every payment is in test USDC on Base Sepolia and moves no real money. ' +
  'Services marked simulated return prepared, simulated output; the market-data service quotes a live public price. ' +
  'No other test networks or tokens are listed at present.';

export const CATALOG_AUTHORITY =
  'An agent may ask for a purchase (POST /api/v1/purchases), but only the owner can pay: the owner opens the approval ' +
  'page on this site and signs the exact payment in their own browser wallet. The index never holds a key or funds, ' +
  'and the agent never receives the signature.';

/**
 * The purchase catalog document: the preview's terms and every demo service, with links on the staging origin.
 * @example const catalog = toPurchaseCatalog(config, 'https://staging.example', new Date());
 */
export function toPurchaseCatalog(terms: Terms, stagingUrl: string, now: Date): PurchaseCatalog {
  return {
    generated_at: now.toISOString(),
    notice: CATALOG_NOTICE,
    authority: CATALOG_AUTHORITY,
    supported: {
      protocol: DEMO_PAYMENT.protocol,
      x402_version: DEMO_PAYMENT.x402Version,
      scheme: DEMO_PAYMENT.scheme,
      network: DEMO_PAYMENT.network,
      network_label: DEMO_PAYMENT.networkLabel,
      testnet: true,
      asset: toAssetTerms(terms.usdcAddress),
      wallet: {
        supported: "A browser wallet whose account is a regular key (EOA): a desktop browser extension, or the browser inside a wallet's phone app.",
        not_yet: [
          'Smart-contract wallets (for example Safe or ERC-4337 smart accounts).',
          "A phone's ordinary browser: open the approval link in your wallet app's browser instead.",
        ],
        funds: 'Test USDC on Base Sepolia of at least the payment amount (faucet.circle.com). No gas token is needed: the facilitator pays the gas.',
      },
    },
    links: {
      entry: `${stagingUrl}/api/v1/purchase`,
      purchases: `${stagingUrl}/api/v1/purchases`,
      quickstart: `${stagingUrl}/docs/purchase.md`,
    },
    services: DEMO_SERVICES.map((service) => toCatalogService(service, terms, stagingUrl)),
  };
}

/**
 * One demo service's catalog entry, derived from its definition.
 * @example toCatalogService(webSearch, config, 'https://staging.example').payment.amount // { decimal: '0.003', atomic: '3000' }
 */
export function toCatalogService(service: DemoService, terms: Terms, stagingUrl: string): CatalogService {
  const endpoint = `${stagingUrl}${service.path}`;
  const params = listDemoParams(service.query);
  const examples = Object.fromEntries(params.map((param) => [param.name, param.example]));
  return {
    id: service.id,
    name: service.name,
    description: service.description,
    operator: service.operator,
    simulated: service.simulated,
    testnet: true,
    available: true,
    request: {
      method: 'GET',
      endpoint,
      params: params.map((param) => ({
        name: param.name,
        in: 'query' as const,
        type: typeof param.example === 'number' ? ('integer' as const) : ('string' as const),
        required: param.default === undefined,
        description: param.description,
        enum: [...param.values],
        ...(param.default === undefined ? {} : { default: param.default }),
        example: param.example,
      })),
      unknown_params: 'rejected',
      example_url: `${endpoint}?${toQueryString(service.query, examples)}`,
    },
    payment: {
      protocol: DEMO_PAYMENT.protocol,
      x402_version: DEMO_PAYMENT.x402Version,
      scheme: DEMO_PAYMENT.scheme,
      network: DEMO_PAYMENT.network,
      network_label: DEMO_PAYMENT.networkLabel,
      asset: toAssetTerms(terms.usdcAddress),
      amount: { decimal: service.price, atomic: toAtomic(service.price) },
      price_display: toPriceDisplay(service.price),
      pay_to: getAddress(terms.payToAddress),
      max_timeout_seconds: DEMO_PAYMENT.maxTimeoutSeconds,
    },
    returns: service.returns,
    example_prompts: [...service.examplePrompts],
    links: {
      self: `${stagingUrl}/api/v1/purchase/services/${service.id}`,
      purchase: `${stagingUrl}/api/v1/purchases`,
      quickstart: `${stagingUrl}/docs/purchase.md`,
    },
  };
}

/**
 * How a price reads: `$0.003 / call (test USDC)`.
 * @example toPriceDisplay('0.02') // '$0.02 / call (test USDC)'
 */
export function toPriceDisplay(decimal: string): string {
  return `$${decimal} / call (test USDC)`;
}
