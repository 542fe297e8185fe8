import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

/** The one real demo service: a live BTC or ETH quote from a public price source (PRICE_SOURCE_URL). */
export const marketData = defineDemoService({
  id: 'index-demo-market-data',
  name: 'Market data (demo)',
  description: 'Live USD price and 24-hour change of BTC or ETH from a public price source.',
  operator: DEMO_OPERATOR,
  simulated: false,
  path: '/api/demo/market',
  price: '0.01',
  query: demoQuery({
    asset: oneOf(['BTC', 'ETH'], { description: 'The asset to quote.', example: 'ETH' }),
  }),
  returns: {
    asset: 'string: BTC or ETH',
    price_usd: 'number or null: null when the price source cannot be reached',
    change_24h_pct: 'number or null: change over 24 hours in percent',
    as_of: 'string (ISO 8601): when the quote was taken',
    source: 'string: the price source, or why no price is available',
  },
  examplePrompts: ['What is the price of ETH right now?', 'How much did BTC move in the last 24 hours?'],
  respond: async ({ asset }, { priceSource }) => ({ asset, ...(await priceSource.getQuote(asset)) }),
});
