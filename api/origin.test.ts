import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { serveApp } from './app.ts';
import type { Config } from './config.ts';
import { createTestApp, postJson } from './testing.ts';

const servers: Array<ReturnType<typeof serveApp>> = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close(true)));
});

async function listen(config: Partial<Config> = {}) {
  const test = createTestApp([], { config });
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  servers.push(server);
  return new URL(server.url!).origin;
}

/** A request with the Host header a client chose (fetch would not send a forged one). */
function withHost(origin: string, path: string, host: string, body?: unknown): Promise<{ status: number; headers: Record<string, unknown>; json: any }> {
  return new Promise((resolve, reject) => {
    const init = body === undefined ? { method: 'GET' } : { method: 'POST', headers: { 'content-type': 'application/json' } };
    const req = httpRequest(`${origin}${path}`, { ...init, headers: { ...(init.headers ?? {}), host } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : (postJson(body).body as string));
  });
}

describe('links in answers are built on the own origin, never on the Host header', () => {
  it('with STAGING_URL and BASE_URL unset, the catalog and approve_url name the listening address', async () => {
    const origin = await listen();
    const catalog = await withHost(origin, '/api/v1/purchase', 'evil.example');
    expect(catalog.status).toBe(200);
    expect(catalog.headers['cache-control']).toMatch(/public/);
    const text = JSON.stringify(catalog.json);
    expect(text).not.toContain('evil.example');
    expect(text).toContain(`${origin}/api/demo/services/`);

    const purchase = await withHost(origin, '/api/v1/purchases', 'evil.example', { service_id: 'index-demo-web-search', params: { query_id: 'base-sepolia-faucet' } });
    expect(purchase.status).toBe(200);
    expect(purchase.json.approve_url).toBe(`${origin}/purchase/${purchase.json.id}`);
  });

  it('a configured STAGING_URL wins over both the socket and the Host header', async () => {
    const origin = await listen({ stagingUrl: 'https://staging.example.org' });
    const catalog = await withHost(origin, '/api/v1/purchase/services/index-demo-web-search', 'evil.example');
    expect(JSON.stringify(catalog.json)).toContain('https://staging.example.org/api/demo/services/');
    expect(JSON.stringify(catalog.json)).not.toContain('evil.example');
  });
});
