/**
 * Benchmark child: the real app (same `serve` as `npm start`) on the database given as the first argument,
 * with a rate limit high enough that no request is ever refused.
 */
import { Server } from 'node:http';
import { createApp, serveApp } from '../../api/app.ts';
import { testConfig } from '../../api/testing.ts';
import { openDatabase } from '../../data/db.ts';
import { SERVER_PROCESS } from '../../processes.ts';
import { instrument } from './instrument.ts';

const [databasePath] = process.argv.slice(2);
if (!databasePath) throw new Error('usage: serve-app.ts <database path>');

const db = openDatabase(databasePath, { cacheKiB: SERVER_PROCESS.databaseCacheKiB });
const config = testConfig({ databasePath, rateLimit: { limit: 1_000_000_000, windowSeconds: 60 } });
const server = serveApp(createApp({ db, config, now: () => new Date() }), { hostname: '127.0.0.1', port: 0 });
await server.ready();
const httpServer = server.node?.server;
if (!(httpServer instanceof Server) || !server.url) throw new Error('expected a node:http server');
instrument(httpServer, server.url);
