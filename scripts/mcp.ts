import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { readConfig } from '../api/config.ts';
import { createMcpServer } from '../api/mcp/server.ts';
import { openDatabase } from '../data/db.ts';
import { readSeed, seedIfEmpty } from '../data/seed.ts';

/**
 * `npm run --silent mcp`: the index's MCP tools over stdio on the local database (DATABASE_PATH, created and seeded
 * like `npm start` does when missing), for an MCP client that starts it as a command. stdout carries only MCP
 * messages; anything else goes to stderr. This process serves no pages: a purchase's approval URL points at the
 * server that does, STAGING_URL or BASE_URL; without either it can only guess HOST:PORT, and says so on stderr.
 */
const config = readConfig(process.env);
const db = openDatabase(config.databasePath);
seedIfEmpty(db, readSeed(), new Date().toISOString());
const deps = { db, config, now: () => new Date() };
const origin = config.stagingUrl ?? config.baseUrl ?? `http://${config.host}:${config.port}`;
if (!config.stagingUrl && !config.baseUrl) {
  process.stderr.write(`BASE_URL is not set: purchase approval links point at ${origin}. Set BASE_URL to the origin where npm start serves this index.\n`);
}
// One local client: every per-client limit counts the process's calls together.
const server = createMcpServer({ deps, origin, client: 'local' });
await server.connect(new StdioServerTransport());
const close = () => void server.close().finally(() => db.close());
process.stdin.on('end', close);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, close);
