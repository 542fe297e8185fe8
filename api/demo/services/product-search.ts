import { demoQuery, oneOf } from '../query.ts';
import { defineDemoService, DEMO_OPERATOR } from '../service.ts';

interface Product {
  name: string;
  vendor: string;
  price_eur: number;
  rating: number;
  availability: string;
  note: string;
}

const p = (name: string, vendor: string, price_eur: number, rating: number, availability: string, note: string): Product => ({
  name, vendor, price_eur, rating, availability, note,
});

/** Each query spans the price bands, so every `max_eur` returns a different, non-empty list. */
const CATALOG: Record<'usb-c-hub' | 'standing-desk' | 'noise-cancelling-headphones', { query: string; products: Product[] }> = {
  'usb-c-hub': {
    query: 'USB-C hub with HDMI and power delivery',
    products: [
      p('Travel hub 4-in-1', 'Portline', 24.9, 4.1, 'in stock', 'One HDMI (4K at 30 Hz), 60 W pass-through'),
      p('Hub 7-in-1 aluminium', 'Dockwise', 45, 4.4, 'in stock', 'HDMI 4K at 60 Hz, SD reader, 100 W pass-through'),
      p('Dual-display dock', 'Dockwise', 129, 4.6, 'ships in 3 days', 'Two HDMI outputs, 2.5 GbE, 96 W charging'),
      p('Thunderbolt 4 dock', 'Boltwerk', 289, 4.7, 'in stock', 'Three displays, 10 GbE, 98 W charging'),
    ],
  },
  'standing-desk': {
    query: 'standing desk for a home office',
    products: [
      p('Desktop riser', 'Uprise', 39.99, 3.9, 'in stock', 'Sits on an existing desk; manual lift'),
      p('Manual crank desk 120 cm', 'Holz & Co', 139, 4.0, 'in stock', 'Hand crank, 40 kg load'),
      p('Electric desk single motor 140 cm', 'Uprise', 249, 4.3, 'ships in 5 days', 'Memory presets, 70 kg load'),
      p('Electric desk dual motor 160 cm', 'Ergoform', 389, 4.8, 'ships in 2 weeks', 'Quiet dual motors, 120 kg load, 10-year frame warranty'),
    ],
  },
  'noise-cancelling-headphones': {
    query: 'noise-cancelling headphones',
    products: [
      p('ANC earbuds Lite', 'Soundra', 49, 3.8, 'in stock', 'Basic ANC, 6 h battery'),
      p('Over-ear ANC 500', 'Klangwerk', 119, 4.2, 'in stock', 'Good ANC, 30 h battery, folding'),
      p('ANC earbuds Pro', 'Soundra', 149, 4.5, 'low stock', 'Adaptive ANC, wireless charging case'),
      p('Over-ear ANC Studio', 'Klangwerk', 349, 4.8, 'in stock', 'Best-in-class ANC, multipoint, 40 h battery'),
    ],
  },
};

/** Prepared product results for three queries, filtered to a price cap in euros. */
export const productSearch = defineDemoService({
  id: 'index-demo-product-search',
  name: 'Product search (demo)',
  description: 'Products matching a shopping query at or under a price cap, with the best value pick. Simulated: prepared output.',
  operator: DEMO_OPERATOR,
  simulated: true,
  path: '/api/demo/services/product-search',
  price: '0.003',
  query: demoQuery({
    query_id: oneOf(['usb-c-hub', 'standing-desk', 'noise-cancelling-headphones'], {
      description: 'Which prepared shopping query.', example: 'standing-desk',
    }),
    max_eur: oneOf([50, 150, 400], {
      description: 'Price cap in euros: only products at or under it are returned.', example: 150, default: 400,
    }),
  }),
  returns: {
    query: 'string',
    filters: '{max_eur, currency}',
    products: '[{name, vendor, price_eur, rating, availability, note}]: only products at or under max_eur',
    best_value: '{name, price_eur, reason}',
  },
  examplePrompts: ['Find me a USB-C hub under 50 euros.', 'Which standing desk is the best value under 150 euros?'],
  respond: ({ query_id, max_eur }) => {
    const { query, products } = CATALOG[query_id];
    const affordable = products.filter((product) => product.price_eur <= max_eur);
    const [best] = [...affordable].sort((a, b) => b.rating - a.rating || a.price_eur - b.price_eur);
    return {
      query,
      filters: { max_eur, currency: 'EUR' },
      products: affordable,
      best_value: best && {
        name: best.name,
        price_eur: best.price_eur,
        reason: `Highest rated (${best.rating} of 5) of the ${affordable.length} products at or under €${max_eur}.`,
      },
    };
  },
});
