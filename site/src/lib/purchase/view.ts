import type { Purchase } from '../../../../api/purchase/schemas.ts';
import { formatUtc } from '../format.ts';

/** One line of what the owner is about to pay, as the page lists it. */
export interface PurchaseFact {
  label: string;
  value: string;
}

/**
 * What the owner sees before signing: the service, its parameters, the amount, the recipient, the network, the token.
 * @example toPurchaseFacts(purchase)[2] // { label: 'Amount', value: '0.02 USDC (20000 atomic units)' }
 */
export function toPurchaseFacts(purchase: Purchase): PurchaseFact[] {
  const params = Object.entries(purchase.params).map(([name, value]) => `${name} = ${value}`).join(', ');
  return [
    { label: 'Service', value: `${purchase.service_name}${purchase.simulated ? ' (simulated: prepared output)' : ''}` },
    { label: 'Parameters', value: params || 'none' },
    { label: 'Amount', value: `${purchase.amount.decimal} ${purchase.asset.symbol} (${purchase.amount.atomic} atomic units)` },
    { label: 'Recipient (a test address this index is configured with)', value: toRecipient(purchase.pay_to) },
    { label: 'Network', value: `${purchase.network_label}, ${purchase.network}` },
    { label: 'Token', value: `${purchase.asset.symbol} at ${purchase.asset.address}` },
    { label: 'Approve before', value: formatUtc(purchase.expires_at) ?? purchase.expires_at },
  ];
}

/** Where an owner gets test USDC on Base Sepolia, the network every demo payment uses. */
export const FAUCET_URL = 'https://faucet.circle.com/';

/** The approval page as the server renders it, so it reads without JavaScript; the script then keeps it current. */
export interface ApprovalView {
  facts: PurchaseFact[];
  /** describeStatus: the state in one sentence. */
  status: string;
  /** Approve and Decline apply only while the purchase awaits approval. */
  awaiting: boolean;
  /** Where the Decline form posts: the API answers a form 303 back to this page. */
  declineAction: string;
  /** When it expires unless approved, in the site's time format. */
  expires: string;
  faucetUrl: string;
}

/**
 * @example toApprovalView(purchase).awaiting // true
 */
export function toApprovalView(purchase: Purchase): ApprovalView {
  return {
    facts: toPurchaseFacts(purchase),
    status: describeStatus(purchase),
    awaiting: purchase.status === 'awaiting_approval',
    declineAction: `/api/v1/purchases/${encodeURIComponent(purchase.id)}/decline`,
    expires: formatUtc(purchase.expires_at) ?? purchase.expires_at,
    faucetUrl: FAUCET_URL,
  };
}

/**
 * The purchase's state in one sentence for the owner.
 * @example describeStatus({ ...purchase, status: 'expired' }) // 'This purchase expired before it was approved. Ask your agent for a new one.'
 */
export function describeStatus(purchase: Pick<Purchase, 'status' | 'reason'>): string {
  switch (purchase.status) {
    case 'awaiting_approval':
      return 'Waiting for your approval. Nothing is paid until you sign in your wallet.';
    case 'settling':
      return 'Approved: the payment is being settled on Base Sepolia.';
    case 'completed':
      return 'Paid. The service answered and your agent can read the result.';
    case 'failed':
      return `Not paid. ${purchase.reason ?? 'The payment failed.'}`;
    case 'expired':
      return 'This purchase expired before it was approved. Ask your agent for a new one.';
  }
}

/**
 * The purchase id in the approval page's address (`/purchase/{id}`), or null.
 * @example toPurchaseId('/purchase/pur_abc') // 'pur_abc'
 */
export function toPurchaseId(pathname: string): string | null {
  const match = /^\/purchase\/([A-Za-z0-9_-]{1,64})\/?$/.exec(pathname);
  return match?.[1] ?? null;
}

/** The burn address, the default recipient: test USDC paid to it is gone for good. */
const BURN_ADDRESS = '0x000000000000000000000000000000000000dead';

function toRecipient(payTo: string): string {
  return payTo.toLowerCase() === BURN_ADDRESS ? `${payTo} (the burn address: the test USDC paid is gone for good)` : payTo;
}
