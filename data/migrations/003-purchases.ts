/**
 * Purchases of demo services: asked for by an agent, approved (signed) by the owner in a browser wallet,
 * settled through the x402 facilitator. The signature is never stored; the authorization's nonce is, so a
 * nonce cannot pay twice.
 */
export const up = `
CREATE TABLE purchases (
  id               TEXT PRIMARY KEY,
  service_id       TEXT NOT NULL,
  params           TEXT NOT NULL,            -- JSON object, defaults applied
  resource_url     TEXT NOT NULL,            -- the demo service call this purchase pays for
  amount_atomic    TEXT NOT NULL,            -- USDC, 6 decimals
  pay_to           TEXT NOT NULL,
  network          TEXT NOT NULL,            -- CAIP-2
  asset            TEXT NOT NULL,            -- token contract address
  status           TEXT NOT NULL CHECK (status IN ('awaiting_approval', 'settling', 'completed', 'failed', 'expired')),
  reason           TEXT,                     -- why it failed, in words
  payer            TEXT,                     -- the approving wallet, once approved
  nonce            TEXT,                     -- the EIP-3009 nonce of the approved authorization
  transaction_hash TEXT,
  response         TEXT,                     -- JSON: the service's answer, once completed
  created_at       TEXT NOT NULL,
  expires_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE UNIQUE INDEX purchases_payer_nonce ON purchases (lower(payer), lower(nonce)) WHERE nonce IS NOT NULL;
CREATE INDEX purchases_awaiting ON purchases (status, expires_at);
`;
