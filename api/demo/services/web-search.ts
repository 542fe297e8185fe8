import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}
interface PreparedSearch {
  query: string;
  answer: string;
  results: SearchResult[];
}

const SEARCHES: Record<'x402-facilitators' | 'base-sepolia-faucet' | 'eip-3009-authorizations', PreparedSearch> = {
  'x402-facilitators': {
    query: 'which x402 facilitators support Base Sepolia',
    answer: 'The public x402.org facilitator verifies and settles exact payments on Base Sepolia without an API key; hosted facilitators such as CDP cover mainnets and ask for credentials.',
    results: [
      { title: 'x402 facilitator (testnet)', url: 'https://www.x402.org/facilitator', snippet: 'Public facilitator for Base Sepolia and Solana devnet: POST /verify and /settle, GET /supported.' },
      { title: 'Quickstart for sellers', url: 'https://docs.cdp.coinbase.com/x402/quickstart-for-sellers', snippet: 'Point your middleware at a facilitator URL; the testnet one needs no account.' },
      { title: 'x402 specification v2, section 7: facilitator API', url: 'https://github.com/x402-foundation/x402/blob/main/specs/x402-specification-v2.md', snippet: 'The verify and settle request bodies carry paymentPayload and paymentRequirements.' },
      { title: 'x402 ecosystem: facilitators', url: 'https://www.x402.org/ecosystem', snippet: 'Directory of facilitators, with the networks and schemes each supports.' },
      { title: 'CDP x402 API reference', url: 'https://docs.cdp.coinbase.com/api-reference/v2/rest-api/x402', snippet: 'Hosted facilitator for Base mainnet; requests are signed with a CDP API key.' },
    ],
  },
  'base-sepolia-faucet': {
    query: 'where to get test USDC on Base Sepolia',
    answer: "Circle's faucet hands out test USDC on Base Sepolia; paying with an EIP-3009 authorization needs no ETH for gas.",
    results: [
      { title: 'Circle testnet faucet', url: 'https://faucet.circle.com/', snippet: 'Request test USDC and EURC on Base Sepolia and other test networks.' },
      { title: 'Base Sepolia network details', url: 'https://docs.base.org/chain/network-information', snippet: 'Chain id 84532, RPC https://sepolia.base.org, explorer sepolia.basescan.org.' },
      { title: 'USDC contract addresses', url: 'https://developers.circle.com/stablecoins/usdc-contract-addresses', snippet: 'Base Sepolia USDC: 0x036CbD53842c5426634e7929541eC2318f3dCF7e.' },
      { title: 'Base Sepolia explorer', url: 'https://sepolia.basescan.org/', snippet: 'Look up test transactions and token balances.' },
      { title: 'Network and token support (x402 docs)', url: 'https://docs.x402.org/core-concepts/network-and-token-support', snippet: 'Which tokens the exact scheme supports on each network.' },
    ],
  },
  'eip-3009-authorizations': {
    query: 'how EIP-3009 transferWithAuthorization works',
    answer: 'The payer signs an EIP-712 TransferWithAuthorization (from, to, value, validAfter, validBefore, nonce); anyone can submit it, and the token rejects a reused nonce or an expired window.',
    results: [
      { title: 'EIP-3009: Transfer With Authorization', url: 'https://eips.ethereum.org/EIPS/eip-3009', snippet: 'Gasless transfers authorised by an off-chain EIP-712 signature with a random 32-byte nonce.' },
      { title: 'EIP-712: Typed structured data hashing and signing', url: 'https://eips.ethereum.org/EIPS/eip-712', snippet: 'The domain (name, version, chainId, verifyingContract) binds a signature to one token on one chain.' },
      { title: 'x402 exact scheme on EVM', url: 'https://github.com/x402-foundation/x402/blob/main/specs/schemes/exact/scheme_exact_evm.md', snippet: 'How x402 carries the authorization and how a facilitator verifies and settles it.' },
      { title: 'Circle FiatToken v2 source', url: 'https://github.com/circlefin/stablecoin-evm', snippet: 'transferWithAuthorization, receiveWithAuthorization and cancelAuthorization in USDC.' },
      { title: 'viem signTypedData', url: 'https://viem.sh/docs/actions/wallet/signTypedData', snippet: 'Ask a wallet for an eth_signTypedData_v4 signature over typed data.' },
    ],
  },
};

/** Prepared web search results for three fixed queries, 3 or 5 results. */
export const webSearch = defineDemoService({
  id: 'index-demo-web-search',
  name: 'Web search (demo)',
  description: 'Ranked web results with a short answer for a fixed set of queries. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/web-search',
  price: '0.003',
  query: demoQuery({
    query_id: oneOf(['x402-facilitators', 'base-sepolia-faucet', 'eip-3009-authorizations'], {
      description: 'Which prepared query to run.', example: 'base-sepolia-faucet',
    }),
    max_results: oneOf([3, 5], { description: 'How many results to return.', example: 3, default: 5 }),
  }),
  returns: {
    query_id: 'string',
    query: 'string: the query as run',
    result_count: 'integer',
    results: '[{rank, title, url, snippet}]',
    answer: 'string: a short answer drawn from the results',
    note: 'string',
  },
  examplePrompts: ['Search the web for a Base Sepolia USDC faucet.', 'Find the top 3 pages on EIP-3009 authorizations.'],
  respond: ({ query_id, max_results }) => {
    const search = SEARCHES[query_id];
    const results = search.results.slice(0, max_results).map((result, index) => ({ rank: index + 1, ...result }));
    return {
      query_id,
      query: search.query,
      result_count: results.length,
      results,
      answer: search.answer,
      note: 'Simulated: prepared results from a fixed snapshot, not a live search.',
    };
  },
});
