import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** s3rver's fixed credentials: it checks signatures against them. */
export const S3RVER_KEYS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

export interface LocalStore {
  endpoint: string;
  /** The environment a publish or replica needs to reach it (path-style, its credentials). */
  env: Record<string, string>;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver) on loopback in a child process, with these buckets, its data in a temp folder.
 * @example const store = await startLocalStore(['site']); ...; await store.stop();
 */
export async function startLocalStore(buckets: string[]): Promise<LocalStore> {
  const dir = mkdtempSync(join(tmpdir(), 'psi-s3-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', join(import.meta.dirname, 's3rver-child.cjs'), dir, ...buckets], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`s3rver exited ${code} before listening`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: { ...S3RVER_KEYS, S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: '1' },
    child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill();
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface StoreProxy {
  url: string;
  /** Every request seen, as `METHOD /path?query`. */
  requests: string[];
  /** Set to answer these requests with 500 instead of passing them on. */
  fail: ((method: string, path: string) => boolean) | null;
  /** Delay before passing each PUT on, in ms. */
  delayMs: number;
  close(): Promise<void>;
}

/**
 * A proxy in front of a store that records requests and, when told, slows uploads or answers 500: a real
 * server's failure seen over a real socket.
 */
export async function startStoreProxy(target: string): Promise<StoreProxy> {
  const { createServer, request } = await import('node:http');
  const proxy: StoreProxy = { url: '', requests: [], fail: null, delayMs: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    const line = `${req.method} ${req.url}`;
    proxy.requests.push(line);
    if (proxy.fail?.(req.method!, req.url!)) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>');
      return;
    }
    const forward = () => {
      const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (req.method === 'PUT' && proxy.delayMs > 0) setTimeout(forward, proxy.delayMs);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  proxy.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return proxy;
}
