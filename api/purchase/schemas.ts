import { z } from 'zod';
import { PURCHASE_STATUSES } from '../../data/purchases.ts';

/** The purchase preview's request and response shapes: types come from `z.infer`, `/openapi.json` from these. */

const dateTime = z.iso.datetime({ offset: true });
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const paramValue = z.union([z.string(), z.int()]);

const Amount = z
  .object({
    decimal: z.string().meta({ example: '0.003' }),
    atomic: z.string().meta({ description: 'decimal times 10^6', example: '3000' }),
  })
  .meta({ id: 'PurchaseAmount' });

const Asset = z
  .object({ symbol: z.literal('USDC'), address, decimals: z.literal(6) })
  .meta({ id: 'PurchaseAsset' });

export const CatalogParam = z
  .object({
    name: z.string(),
    in: z.literal('query'),
    type: z.enum(['string', 'integer']),
    required: z.boolean(),
    description: z.string(),
    enum: z.array(paramValue),
    default: paramValue.optional(),
    example: paramValue,
  })
  .meta({ id: 'CatalogParam' });

export const CatalogPayment = z
  .object({
    protocol: z.literal('x402'),
    x402_version: z.literal(2),
    scheme: z.literal('exact'),
    network: z.literal('eip155:84532'),
    network_label: z.string(),
    asset: Asset,
    amount: Amount,
    price_display: z.string(),
    pay_to: address,
    max_timeout_seconds: z.literal(300),
  })
  .meta({ id: 'CatalogPayment' });

export const CatalogService = z
  .object({
    id: z.string().meta({ example: 'index-demo-web-search' }),
    name: z.string(),
    description: z.string(),
    operator: z.string(),
    simulated: z.boolean().meta({ description: 'true: the service returns prepared, simulated output.' }),
    testnet: z.literal(true),
    available: z.boolean(),
    request: z.object({
      method: z.literal('GET'),
      endpoint: z.string(),
      params: z.array(CatalogParam),
      unknown_params: z.literal('rejected'),
      example_url: z.string(),
    }),
    payment: CatalogPayment,
    returns: z.record(z.string(), z.string()).meta({ description: 'Response field name -> type description.' }),
    example_prompts: z.array(z.string()),
    links: z.object({ self: z.string(), purchase: z.string(), quickstart: z.string() }),
  })
  .meta({ id: 'CatalogService' });
export type CatalogService = z.infer<typeof CatalogService>;

export const PurchaseCatalog = z
  .object({
    generated_at: dateTime,
    notice: z.string(),
    authority: z.string(),
    supported: z.object({
      protocol: z.literal('x402'),
      x402_version: z.literal(2),
      scheme: z.literal('exact'),
      network: z.literal('eip155:84532'),
      network_label: z.string(),
      testnet: z.literal(true),
      asset: Asset,
      wallet: z.object({ supported: z.string(), not_yet: z.array(z.string()), funds: z.string() }),
    }),
    links: z.object({ entry: z.string(), purchases: z.string(), quickstart: z.string() }),
    services: z.array(CatalogService),
  })
  .meta({ id: 'PurchaseCatalog' });
export type PurchaseCatalog = z.infer<typeof PurchaseCatalog>;

const SERVICE_ID_REQUIRED = 'is required: one of the service ids at /api/v1/purchase';

export const PurchaseRequest = z
  .object({
    service_id: z.string({ error: SERVICE_ID_REQUIRED }).trim().min(1, { error: SERVICE_ID_REQUIRED })
      .meta({ description: 'A catalog id (index-demo-...).', example: 'index-demo-web-search' }),
    params: z.record(z.string(), z.unknown(), { error: "must be a JSON object of the service's parameters" }).optional()
      .meta({ description: "The service's query parameters, each checked as the service checks it; unknown ones are rejected." }),
  })
  .meta({ id: 'PurchaseRequest' });
export type PurchaseRequest = z.infer<typeof PurchaseRequest>;

/** The x402 v2 terms the owner's authorization must satisfy: exactly the demo service's challenge. */
export const PaymentRequirements = z
  .object({
    scheme: z.literal('exact'),
    network: z.string(),
    amount: z.string(),
    asset: address,
    payTo: address,
    maxTimeoutSeconds: z.int(),
    extra: z.object({ name: z.string(), version: z.string() }),
  })
  .meta({ id: 'PaymentRequirements' });

export const Purchase = z
  .object({
    id: z.string().meta({ description: 'Unguessable; whoever holds it can approve the purchase.' }),
    status: z.enum(PURCHASE_STATUSES),
    reason: z.string().nullable().meta({ description: 'Why the purchase failed, in words.' }),
    service_id: z.string(),
    service_name: z.string(),
    simulated: z.boolean(),
    params: z.record(z.string(), paramValue).meta({ description: 'As validated, defaults applied.' }),
    amount: Amount,
    price_display: z.string(),
    pay_to: address,
    network: z.string(),
    network_label: z.string(),
    asset: Asset,
    payment_requirements: PaymentRequirements,
    approve_url: z.string().meta({ description: "The owner's approval page; give it to the owner." }),
    expires_at: dateTime.meta({ description: 'An unapproved purchase expires 300 s after it was made.' }),
    created_at: dateTime,
    updated_at: dateTime,
    payer: address.nullable().meta({ description: 'The wallet that approved, once approved.' }),
    transaction: z.string().nullable().meta({ description: 'The settlement transaction hash, once settled.' }),
    explorer_url: z.string().nullable(),
    response: z.record(z.string(), z.unknown()).nullable().meta({ description: "The service's answer, once completed." }),
  })
  .meta({ id: 'Purchase' });
export type Purchase = z.infer<typeof Purchase>;

export const ApprovalRequest = z
  .object({
    authorization: z.object({
      from: address,
      to: address,
      value: z.string().regex(/^\d+$/),
      validAfter: z.string().regex(/^\d+$/),
      validBefore: z.string().regex(/^\d+$/),
      nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
    }).meta({ description: 'The EIP-3009 transferWithAuthorization the owner signed: exactly the purchase\'s terms.' }),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/).meta({ description: "The owner's EIP-712 signature of the authorization." }),
    domain: z
      .object({ name: z.string(), version: z.string(), chainId: z.int(), verifyingContract: address })
      .optional()
      .meta({ description: 'The EIP-712 domain the wallet was asked to sign, to name a mismatch precisely.' }),
  })
  .meta({ id: 'ApprovalRequest' });
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/** The x402 v2 challenge of a demo service, as in `PAYMENT-REQUIRED` (base64) and mirrored in the 402 body. */
export const PaymentRequired = z
  .object({
    x402Version: z.literal(2),
    error: z.string().meta({ description: '"Payment required", or why a payment was refused.' }),
    resource: z.object({ url: z.string(), description: z.string(), mimeType: z.string() }),
    accepts: z.array(PaymentRequirements),
  })
  .meta({ id: 'PaymentRequired' });
