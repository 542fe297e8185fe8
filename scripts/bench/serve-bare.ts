/**
 * Benchmark child: the baseline, a bare `node:http` server answering every request with one constant JSON body
 * (the first argument: a real detail response, so both sides send the same bytes).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { instrument } from './instrument.ts';

const body = Buffer.from(process.argv[2] ?? '{}');
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };
const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  instrument(server, `http://127.0.0.1:${port}/`);
});
