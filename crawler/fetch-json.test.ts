import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchJson } from './fetch-json.ts';

const DOCUMENT = Buffer.from(JSON.stringify({ name: 'Café ☕ naïve' }));
/** Inside the three bytes of ☕, so the document arrives in two chunks that each end or start mid-character. */
const SPLIT_AT = DOCUMENT.indexOf(Buffer.from('☕')) + 1;

const server = createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.write(DOCUMENT.subarray(0, SPLIT_AT));
  setTimeout(() => res.end(DOCUMENT.subarray(SPLIT_AT)), 30);
});
let origin = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('fetchJson', () => {
  it('decodes a character split between two network chunks', async () => {
    expect(await fetchJson(`${origin}/`)).toEqual({ name: 'Café ☕ naïve' });
  });
});
