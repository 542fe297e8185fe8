import { describe, expect, it } from 'vitest';
import { ErrorResponse } from '../../domain/schemas.ts';
import { createTestApp } from '../testing.ts';
import { CatalogService, PurchaseCatalog } from './schemas.ts';
import { SPEC_SERVICES } from './testing/spec-table.ts';

const PAY_TO = '0x00000000000000000000000000000000000Fee01';
const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const STAGING = 'https://staging.index.test';

describe('GET /api/v1/purchase', () => {
  it('answers the catalog document of the spec, links on STAGING_URL', async () => {
    const { request } = createTestApp([], { config: { stagingUrl: STAGING, payToAddress: PAY_TO } });
    const { status, json } = await request('/api/v1/purchase');
    expect(status).toBe(200);
    const catalog = PurchaseCatalog.parse(json);
    expect(catalog.notice).toMatch(/testnet/i);
    expect(catalog.notice).toMatch(/simulated/);
    expect(catalog.authority).toMatch(/agent may ask for a purchase/i);
    expect(catalog.authority).toMatch(/only the owner can pay/i);
    expect(catalog.supported).toEqual({
      protocol: 'x402',
      x402_version: 2,
      scheme: 'exact',
      network: 'eip155:84532',
      network_label: 'Base Sepolia (testnet)',
      testnet: true,
      asset: { symbol: 'USDC', address: BASE_SEPOLIA_USDC, decimals: 6 },
      wallet: { supported: expect.stringMatching(/EOA/), not_yet: expect.any(Array), funds: expect.stringMatching(/no gas token/i) },
    });
    expect(catalog.supported.wallet.not_yet.join(' ')).toMatch(/smart-contract wallets.*phone's ordinary browser/i);
    expect(catalog.links).toEqual({
      entry: `${STAGING}/api/v1/purchase`,
      purchases: `${STAGING}/api/v1/purchases`,
      quickstart: `${STAGING}/docs/purchase.md`,
    });
    expect(catalog.services.map((service) => service.id)).toEqual(SPEC_SERVICES.map((service) => service.id));
  });

  it.each(SPEC_SERVICES)('lists $id exactly as the spec table says', async (spec) => {
    const { request } = createTestApp([], { config: { stagingUrl: STAGING, payToAddress: PAY_TO } });
    const entry = PurchaseCatalog.parse((await request('/api/v1/purchase')).json).services.find((service) => service.id === spec.id);
    expect(entry).toBeDefined();
    const service = CatalogService.parse(entry);
    expect(service).toMatchObject({
      simulated: spec.id !== 'index-demo-market-data',
      testnet: true,
      available: true,
      request: { method: 'GET', endpoint: `${STAGING}${spec.path}`, unknown_params: 'rejected' },
      payment: {
        protocol: 'x402',
        x402_version: 2,
        scheme: 'exact',
        network: 'eip155:84532',
        asset: { symbol: 'USDC', address: BASE_SEPOLIA_USDC, decimals: 6 },
        amount: { decimal: spec.decimal, atomic: spec.atomic },
        pay_to: PAY_TO,
        max_timeout_seconds: 300,
      },
      links: {
        self: `${STAGING}/api/v1/purchase/services/${spec.id}`,
        purchase: `${STAGING}/api/v1/purchases`,
        quickstart: `${STAGING}/docs/purchase.md`,
      },
    });
    expect(service.request.params.map(({ name, required, enum: values, default: fallback, in: where }) => ({ name, required, values, default: fallback, in: where })))
      .toEqual(spec.params.map(({ name, required, values, default: fallback }) => ({ name, required, values, default: fallback, in: 'query' })));
    for (const param of service.request.params) {
      expect(param.enum).toContain(param.example);
      expect(param.description.length).toBeGreaterThan(5);
    }
    expect(Object.keys(service.returns)).toEqual(spec.fields);
    expect(service.example_prompts.length).toBeGreaterThan(0);
    expect(service.name && service.description && service.operator).toBeTruthy();
    const example = new URL(service.request.example_url);
    expect(`${example.origin}${example.pathname}`).toBe(`${STAGING}${spec.path}`);
    expect([...example.searchParams.keys()]).toEqual(spec.params.map((param) => param.name));
  });

  it('serves one entry at /api/v1/purchase/services/{id}, and 404 not_found for an unknown id', async () => {
    const { request } = createTestApp();
    const { status, json } = await request('/api/v1/purchase/services/index-demo-job-search');
    expect(status).toBe(200);
    expect(CatalogService.parse(json)).toMatchObject({ id: 'index-demo-job-search', request: { endpoint: 'http://127.0.0.1:0/api/demo/services/job-search' } }); // in process: the configured HOST and PORT
    const missing = await request('/api/v1/purchase/services/index-demo-nothing');
    expect(missing.status).toBe(404);
    expect(ErrorResponse.parse(missing.json).error.code).toBe('not_found');
  });
});
