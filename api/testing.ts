import { upsertServices } from '../data/services.ts';
import { openTestDatabase } from '../data/testing.ts';
import type { ServiceInput } from '../data/types.ts';
import { createApp, type AppDeps } from './app.ts';
import { DEFAULT_RATE_LIMIT, readConfig, type Config } from './config.ts';

export const TEST_NOW = new Date('2026-11-01T12:00:00.000Z');

/** The defaults of an empty environment, on an ephemeral port, with a rate limit tests do not reach. */
export const testConfig = (overrides: Partial<Config> = {}): Config => ({
  ...readConfig({}),
  port: 0,
  databasePath: ':memory:',
  rateLimit: { ...DEFAULT_RATE_LIMIT, limit: 100_000 },
  // No test reaches the internet: the demo services' facilitator and price source default to a closed local port.
  facilitatorUrl: 'http://127.0.0.1:9/facilitator',
  priceSourceUrl: 'http://127.0.0.1:9/price',
  ...overrides,
});

/**
 * Test support: the real app on a fresh in-memory database holding `services`.
 * @example const { request } = createTestApp([makeService({ id: 'a-test' })]); const res = await request('/api/v1/stats');
 */
export interface TestAppOptions extends Partial<Omit<AppDeps, 'config'>> {
  config?: Partial<Config>;
}

export function createTestApp(services: ServiceInput[] = [], overrides: TestAppOptions = {}) {
  const db = openTestDatabase();
  upsertServices(db, services, TEST_NOW.toISOString());
  const app = createApp({
    db,
    now: () => TEST_NOW,
    lookup: async () => [],
    // A test's second lookup of a service is answered from memory (the server holds one answer read in eight).
    detailCache: { admittedShare: 1 },
    ...overrides,
    config: testConfig(overrides.config),
  });
  const request = async (path: string, init?: RequestInit) => {
    const response = await app.request(path, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
  };
  return { app, db, request };
}

export const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
