import { openDatabase, type DB } from './db.ts';
import type { ServiceInput } from './types.ts';

/**
 * Test support: a migrated in-memory database and services built from a few facts.
 * @example const db = openTestDatabase(); upsertServices(db, [makeService({ id: 'a-test' })], NOW);
 */
export function openTestDatabase(): DB {
  return openDatabase(':memory:');
}

export function makeService(overrides: Partial<ServiceInput> & { id: string }): ServiceInput {
  const endpoint = overrides.endpoint ?? `https://${overrides.id.replaceAll('-', '.')}/v1/pay`;
  const base: ServiceInput = {
    id: overrides.id,
    name: `Service ${overrides.id}`,
    category: 'data',
    description: `Paid data from ${overrides.id}`,
    endpoint,
    facilitator: null,
    price: { usd: 0.01, display: '$0.01 / call' },
    rails: ['x402'],
    chains: ['base'],
    assets: ['USDC'],
    sources: [{ source: 'bazaar', url: 'https://facilitator.test/discovery/resources' }],
    endpoints: [],
  };
  const service = { ...base, ...overrides };
  if (service.endpoints.length === 0) {
    service.endpoints = [
      { url: service.endpoint, method: 'GET', description: null, price: service.price, rails: service.rails, chains: service.chains, assets: service.assets },
    ];
  }
  return service;
}
