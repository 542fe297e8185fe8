import { afterAll, describe, expect, it } from 'vitest';
import { createApp, serveApp } from '../../api/app.ts';
import { testConfig, TEST_NOW } from '../../api/testing.ts';
import { listServiceIds } from '../../data/pages.ts';
import { getServiceInput } from '../../data/services.ts';
import { openTestDatabase } from '../../data/testing.ts';
import { toDirectoryConfig } from '../directories.ts';
import { discover } from '../discover.ts';
import { CATALOG_ID, CATALOG_NAME } from './catalog.ts';

/** The index's own catalog read from a real server over a socket, as `npm start` lists it, on two ports in turn. */
const servers: Array<ReturnType<typeof serveApp>> = [];
afterAll(async () => {
  for (const server of servers) await server.close(true);
});

async function startIndex(): Promise<string> {
  const server = serveApp(createApp({ db: openTestDatabase(), config: testConfig(), now: () => TEST_NOW }), { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  servers.push(server);
  return new URL(server.url!).origin;
}

describe('the index\'s own catalog as a source', () => {
  it('keeps one listing, under one id, when the server restarts on another port', async () => {
    const db = openTestDatabase();
    const origins = [await startIndex(), await startIndex()];
    expect(origins[0]).not.toBe(origins[1]);
    for (const origin of origins) {
      const summary = await discover(db, { directories: [toDirectoryConfig(`catalog=${origin}/api/v1/purchase`)], now: () => TEST_NOW });
      expect(summary.directories[0]!.error).toBeNull();
    }
    expect(listServiceIds(db)).toEqual([CATALOG_ID]);
    const listing = getServiceInput(db, CATALOG_ID)!;
    expect(listing.name).toBe(CATALOG_NAME);
    expect(new URL(listing.endpoint).origin, 'the main endpoint follows the port the server runs on now').toBe(origins[1]);
    expect(listing.endpoints.every((endpoint) => endpoint.url.startsWith(`${origins[1]}/`))).toBe(true);
  });
});
