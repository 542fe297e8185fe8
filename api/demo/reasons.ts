/** Plain-language explanations of the x402 reasons a facilitator gives, for the 402 `error` and purchase records. */
const EXPLANATIONS: Record<string, string> = {
  invalid_exact_evm_signature: 'the signature does not match the payment (another account, or different terms)',
  invalid_exact_evm_payload_signature: 'the signature does not match the payment (another account, or different terms)',
  invalid_exact_evm_recipient_mismatch: 'the authorization pays a different recipient',
  invalid_exact_evm_authorization_value: 'the authorized amount is not the price',
  invalid_exact_evm_payload_authorization_value_mismatch: 'the authorized amount is not the price',
  invalid_exact_evm_payload_authorization_valid_before: 'the authorization has expired; sign a new one',
  invalid_exact_evm_payload_authorization_valid_after: 'the authorization is not valid yet',
  invalid_exact_evm_insufficient_balance: 'the wallet does not hold enough test USDC for this payment',
  invalid_exact_evm_nonce_already_used: 'this authorization was already used; sign a new one',
  invalid_exact_evm_token_name_mismatch: "the token's EIP-712 name does not match the one signed for",
  invalid_exact_evm_token_version_mismatch: "the token's EIP-712 version does not match the one signed for",
  invalid_exact_evm_network_mismatch: 'the payment is for another network',
  invalid_exact_evm_scheme: 'the payment does not use the exact scheme',
  invalid_exact_evm_transaction_simulation_failed: 'the transfer would fail on chain',
  invalid_exact_evm_transaction_failed: 'the transfer transaction failed on chain',
  asset_not_deployed_contract: 'the token contract is not deployed on this network',
  settlement_pending: 'the transfer was sent but not confirmed in time; check the transaction later',
};

/**
 * An x402 reason code with its plain-language explanation.
 * @example explainReason('invalid_exact_evm_insufficient_balance') // 'invalid_exact_evm_insufficient_balance: the wallet does not hold enough test USDC for this payment'
 */
export function explainReason(code: string | undefined): string {
  if (!code) return 'the facilitator refused the payment without a reason';
  const explanation = EXPLANATIONS[code];
  return explanation ? `${code}: ${explanation}` : withoutHex(code.slice(0, 200));
}

/**
 * Text with long hex strings (signatures, calldata) cut short, so a reason can never carry signature material.
 * @example withoutHex('reverted: 0x1c0f48...') // 'reverted: 0x…'
 */
export function withoutHex(text: string): string {
  return text.replace(/0x[0-9a-fA-F]{42,}/g, '0x…');
}
