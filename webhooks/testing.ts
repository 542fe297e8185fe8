import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as a receiver got it, with whether its signature verified. */
export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status it answers (default 204), and how long it takes. */
  answer: { status: number; delayMs: number };
  /** The secret deliveries are verified with; set it once the webhook is created. */
  secret: string | null;
  close(): Promise<void>;
}

/**
 * Test support: a real webhook receiver on a loopback port that verifies every delivery with the `standardwebhooks`
 * package, as a subscriber would, and records it.
 * @example const receiver = await startReceiver(); receiver.secret = created.secret;
 */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], answer: { status: 204, delayMs: 0 }, secret: null, close: async () => {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.received.push({ id: String(request.headers['webhook-id']), headers: request.headers, body, verified: verifies(receiver.secret, body, request.headers) });
      setTimeout(() => response.writeHead(receiver.answer.status).end(), receiver.answer.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return receiver;
}

/** Whether a delivery verifies with `secret` (Standard Webhooks: id, timestamp and HMAC-SHA256 signature). */
export function verifies(secret: string | null, body: string, headers: IncomingHttpHeaders): boolean {
  if (secret === null) return false;
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}
