import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

interface Research {
  title: string;
  question: string;
  /** Ordered strongest first: a brief answer takes the first three, a standard one all five. */
  findings: { claim: string; reasoning: string }[];
  what_this_means: string;
  open_questions: string[];
  confidence: 'low' | 'medium' | 'high';
}

const RESEARCH: Record<'stablecoin-settlement-latency' | 'agent-payment-rails' | 'testnet-facilitators', Research> = {
  'stablecoin-settlement-latency': {
    title: 'Stablecoin settlement latency',
    question: 'How long does an agent wait between paying and the payment being final?',
    findings: [
      { claim: 'On Base, an x402 exact payment is included in about 2 seconds.', reasoning: 'Base produces a block every 2 s and the facilitator submits immediately after verification.' },
      { claim: 'Verification, not settlement, is on the request path.', reasoning: 'A server can answer after /verify and settle after; the client waits for one facilitator round trip.' },
      { claim: 'L2 inclusion is not L1 finality.', reasoning: 'Base batches post to Ethereum within minutes; full finality follows about 13 minutes later.' },
      { claim: 'Solana settles in under a second but retries are common under load.', reasoning: 'Slots are 400 ms; dropped transactions must be resent with a fresh blockhash.' },
      { claim: 'Card rails take days to settle even though authorisation is instant.', reasoning: 'Interchange settlement runs in daily batches, with chargebacks possible for months.' },
    ],
    what_this_means: 'For per-call API payments, a stablecoin payment is final enough to serve the response within seconds; design for the rare reorg rather than waiting for L1 finality.',
    open_questions: ['How often do Base sequencer outages delay inclusion?', 'Should high-value calls wait for L1 finality?'],
    confidence: 'high',
  },
  'agent-payment-rails': {
    title: 'Payment rails for AI agents',
    question: 'Which rail should an agent use to pay for an API call?',
    findings: [
      { claim: 'x402 fits one-off HTTP calls: a 402, one signature, one retry.', reasoning: 'No account or prior session is needed; the challenge carries the full terms.' },
      { claim: 'MPP suits repeated calls to one provider.', reasoning: 'A session amortises setup across many small payments.' },
      { claim: 'ACP targets checkout of goods, not API access.', reasoning: 'It models carts, fulfilment and merchant-of-record duties.' },
      { claim: 'Services increasingly answer on two rails at once.', reasoning: 'A single 402 can carry both an x402 challenge and a Payment authentication header.' },
      { claim: 'Spending limits belong with the owner, not the agent.', reasoning: 'Owner approval per payment or per budget keeps a compromised agent from draining funds.' },
    ],
    what_this_means: 'Default to x402 for pay-per-call APIs, keep MPP for high-frequency use of one provider, and keep the owner in the loop for authority over funds.',
    open_questions: ['Will facilitators converge on one discovery API?', 'How will refunds work for a call that fails after settlement?'],
    confidence: 'medium',
  },
  'testnet-facilitators': {
    title: 'Testnet facilitators',
    question: 'Can a developer rely on public testnet facilitators for end-to-end tests?',
    findings: [
      { claim: 'The public x402.org facilitator needs no key on Base Sepolia.', reasoning: 'It is the default URL of the reference SDK and serves verify, settle and supported.' },
      { claim: 'It is testnet-only and carries no uptime promise.', reasoning: 'Maintainers describe it as a convenience for development.' },
      { claim: 'A local facilitator gives deterministic tests.', reasoning: 'The reference facilitator logic runs against any EVM, including an in-process one.' },
      { claim: 'Test tokens must match the production token domain.', reasoning: 'A signature for the wrong EIP-712 name or version recovers a different address.' },
      { claim: 'Middleware can silently skip payment if /supported fails at start-up.', reasoning: 'Some seller middlewares serve 200 without a challenge when they cannot load supported kinds.' },
    ],
    what_this_means: 'Use the public facilitator for manual trials, a local chain and facilitator in automated tests, and fail closed when the facilitator cannot be reached.',
    open_questions: ['Will a public facilitator for other test networks appear?', 'How should a test assert settlement without a public chain?'],
    confidence: 'medium',
  },
};

const METHOD = {
  brief: 'Desk review of public specifications and documentation; the three strongest findings.',
  standard: 'Desk review of public specifications, documentation and maintainer discussions; five findings with open questions.',
} as const;

/** Prepared research answers on three topics, brief or standard depth. */
export const specialistResearch = defineDemoService({
  id: 'index-demo-specialist-research',
  name: 'Specialist research (demo)',
  description: 'A reasoned research answer on a payments topic: findings, implications, open questions. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/specialist-research',
  price: '0.02',
  query: demoQuery({
    topic_id: oneOf(['stablecoin-settlement-latency', 'agent-payment-rails', 'testnet-facilitators'], {
      description: 'Which research topic.', example: 'agent-payment-rails',
    }),
    depth: oneOf(['brief', 'standard'], {
      description: 'brief: three findings; standard: five findings plus open questions.', example: 'brief', default: 'standard',
    }),
  }),
  returns: {
    topic: '{id, title, question}',
    depth: 'string: brief or standard',
    findings: '[{claim, reasoning}]: three when brief, five when standard',
    what_this_means: 'string',
    open_questions: 'array of string: empty when brief',
    confidence: 'string: low, medium or high',
    method: 'string',
  },
  examplePrompts: ['Research which payment rail an agent should use, briefly.', 'How fast do stablecoin payments settle? Give me the full research.'],
  respond: ({ topic_id, depth }) => {
    const research = RESEARCH[topic_id];
    return {
      topic: { id: topic_id, title: research.title, question: research.question },
      depth,
      findings: research.findings.slice(0, depth === 'brief' ? 3 : 5),
      what_this_means: research.what_this_means,
      open_questions: depth === 'brief' ? [] : research.open_questions,
      confidence: research.confidence,
      method: METHOD[depth],
    };
  },
});
