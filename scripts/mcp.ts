import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { readConfig } from '../api/config.ts';
import { createMcpServer } from '../api/mcp/server.ts';
import { createDetailCache } from '../data/detail-cache.ts';
import { openDatabase } from '../data/db.ts';
import { readSeed, seedIfEmpty } from '../data/seed.ts';

/**
 * `npm run --silent mcp`: the index's MCP tools over stdio on the local database (DATABASE_PATH, created and seeded
 * like `npm start` does when missing), for an MCP client that starts it as a command. stdout carries only MCP
 * messages; anything else goes to stderr. Purchase approval URLs point at BASE_URL, else the server's HOST:PORT.
 */
const config = readConfig(process.env);
const db = openDatabase(config.databasePath);
seedIfEmpty(db, readSeed(), new Date().toISOString());
const deps = { db, config, now: () => new Date() };
const origin = config.stagingUrl ?? config.baseUrl ?? `http://${config.host}:${config.port}`;
// One local client: every per-client limit counts the process's calls together.
const server = createMcpServer({ deps, details: createDetailCache(db), origin, client: 'local' });
await server.connect(new StdioServerTransport());
const close = () => void server.close().finally(() => db.close());
process.stdin.on('end', close);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, close);
