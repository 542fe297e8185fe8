import { afterAll, describe, expect, it } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { serveApp } from './app.ts';
import { createTestApp } from './testing.ts';

/*
 * A body refused before it is read must not leave the client's keep-alive pool holding a connection the server is
 * about to drop: undici's pool (Node's own fetch) reuses an idle connection, and a server that closes one under it
 * turns the next request into ECONNRESET.
 */

const servers: Array<ReturnType<typeof serveApp>> = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close(true)));
});

async function listen() {
  const test = createTestApp();
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  servers.push(server);
  return new URL(server.url!).origin;
}

describe('a body refused early (413)', () => {
  it.each(['/api/v1/submit', '/api/v1/services/batch', '/mcp'])('on %s leaves the pool usable: a burst of GETs then another a second later all answer', async (path) => {
    const origin = await listen();
    const pool = new Agent({ connections: 8 });
    try {
      const refused = await undiciFetch(`${origin}${path}`, {
        method: 'POST', dispatcher: pool, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ endpoint: 'https://a.example/pay', padding: 'x'.repeat(2 * 1024 * 1024) }),
      });
      expect(refused.status).toBe(413);
      expect(refused.headers.get('connection')).toBe('close');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
      const burst = await Promise.all(Array.from({ length: 50 }, () =>
        undiciFetch(`${origin}/api/v1/stats`, { dispatcher: pool }).then(async (res) => (await res.arrayBuffer(), res.status))));
      expect(burst.every((status) => status === 200)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const later = await Promise.all(Array.from({ length: 8 }, () =>
        undiciFetch(`${origin}/api/v1/stats`, { dispatcher: pool }).then(async (res) => (await res.arrayBuffer(), res.status))));
      expect(later).toEqual(Array(8).fill(200));
    } finally {
      await pool.close();
    }
  });
});
