import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { upsertServices } from '../data/services.ts';
import { makeService } from '../data/testing.ts';
import { serveApp } from '../api/app.ts';
import { createTestApp, TEST_NOW } from '../api/testing.ts';

/** The real app over a real socket on an ephemeral loopback port. */
async function listen(overrides: Parameters<typeof createTestApp>[1] = {}) {
  const test = createTestApp([], overrides);
  const server = serveApp(test.app, { hostname: '127.0.0.1', port: 0 });
  await server.ready();
  const origin = new URL(server.url!).origin;
  servers.push(server);
  return { ...test, origin };
}
const servers: Array<ReturnType<typeof serveApp>> = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close(true)));
});

/** A raw request, so the test controls framing (chunked bodies, no content-length). */
function rawPost(origin: string, path: string, chunks: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('over a real socket', () => {
  it('limits each client address separately, trusting X-Forwarded-For only when told to', async () => {
    const direct = await listen({ config: { rateLimit: { limit: 2, windowSeconds: 60 } } });
    const statuses = [];
    for (const forwarded of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) {
      statuses.push((await fetch(`${direct.origin}/api/v1/stats`, { headers: { 'x-forwarded-for': forwarded } })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);

    const proxied = await listen({ config: { rateLimit: { limit: 2, windowSeconds: 60 }, trustProxy: true } });
    const perClient = [];
    for (const forwarded of ['1.1.1.1', '1.1.1.1', '2.2.2.2', '1.1.1.1']) {
      perClient.push((await fetch(`${proxied.origin}/api/v1/stats`, { headers: { 'x-forwarded-for': forwarded } })).status);
    }
    expect(perClient).toEqual([200, 200, 200, 429]);
    const limited = await fetch(`${proxied.origin}/api/v1/stats`, { headers: { 'x-forwarded-for': '1.1.1.1' } });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('ratelimit-policy')).toBe('2;w=60');
    expect((await limited.json()).error.code).toBe('rate_limited');
    // The proxy appends the address it saw; whatever the client wrote before it does not make a new client.
    const spoofed = [];
    for (const written of ['9.9.9.1', '9.9.9.2', '9.9.9.3']) {
      spoofed.push((await fetch(`${proxied.origin}/api/v1/stats`, { headers: { 'x-forwarded-for': `${written}, 3.3.3.3` } })).status);
    }
    expect(spoofed).toEqual([200, 200, 429]);
  });

  it('counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 address, for the rate limit and per-client limits', async () => {
    const proxied = await listen({ config: { rateLimit: { limit: 2, windowSeconds: 60 }, trustProxy: true } });
    const from = async (client: string, path = '/api/v1/stats', init: RequestInit = {}) =>
      (await fetch(`${proxied.origin}${path}`, { ...init, headers: { ...init.headers, 'x-forwarded-for': client } })).status;
    // One subscriber's /64: a new address for each request is the same client.
    const oneNetwork = [await from('2001:db8:7:1::1'), await from('2001:db8:7:1:aaaa::2'), await from('2001:db8:7:1:ffff:ffff:ffff:ffff')];
    expect(oneNetwork).toEqual([200, 200, 429]);
    expect(await from('2001:db8:7:2::1')).toBe(200);
    expect([await from('::ffff:192.0.2.80'), await from('192.0.2.80')]).toEqual([200, 200]);
    expect(await from('192.0.2.80')).toBe(429);
    // The limits kept per client elsewhere (here the webhooks a client may create an hour) count the /64 too.
    const roomy = await listen({ config: { trustProxy: true }, lookup: async () => ['93.184.215.14'] });
    const create = (i: number) => fetch(`${roomy.origin}/api/v1/webhooks`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': `2001:db8:9:1::${i.toString(16)}` },
      body: JSON.stringify({ url: `https://hooks-${i}.example.com/in` }),
    }).then((response) => response.status);
    const created = [];
    for (let i = 1; i <= 11; i++) created.push(await create(i));
    expect(created).toEqual([...Array(10).fill(201), 429]);
  });

  it('limits service lookups answered before routing per client too, and frames them like any answer', async () => {
    const proxied = await listen({ config: { rateLimit: { limit: 2, windowSeconds: 60 }, trustProxy: true } });
    upsertServices(proxied.db, [makeService({ id: 'cafe-test', name: 'Café ☕ API' })], TEST_NOW.toISOString());
    const lookUp = (client: string) => fetch(`${proxied.origin}/api/v1/services/cafe-test`, { headers: { 'x-forwarded-for': client } });
    const first = await lookUp('1.1.1.1');
    const text = await first.text();
    expect(first.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(first.headers.get('date')).not.toBeNull();
    expect(JSON.parse(text).name).toBe('Café ☕ API');
    const statuses = [(await lookUp('1.1.1.1')).status, (await lookUp('2.2.2.2')).status];
    const limited = await lookUp('1.1.1.1');
    expect([...statuses, limited.status]).toEqual([200, 200, 429]);
    expect((await limited.json()).error.code).toBe('rate_limited');
  });

  it('answers a body over 64 KiB with 413 invalid_json, declared or chunked, and stores nothing', async () => {
    const { origin, db } = await listen();
    const big = JSON.stringify({ endpoint: 'https://a.example/pay', name: 'x'.repeat(70_000) });
    const declared = await fetch(`${origin}/api/v1/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe('invalid_json');
    const chunked = await rawPost(origin, '/api/v1/submit', [Buffer.from(big.slice(0, 40_000)), Buffer.from(big.slice(40_000))]);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error.code).toBe('invalid_json');
    expect(db.prepare('SELECT count(*) AS n FROM submissions').get()).toEqual({ n: 0 });
  });

  it('answers a request Node cannot read in the Error shape, not a bare status line', async () => {
    const { origin } = await listen();
    const exchange = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(origin).port), '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    const read = (answer: string) => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      return { statusLine: head.split('\r\n')[0], head: head.toLowerCase(), body: JSON.parse(body) };
    };

    const garbled = read(await exchange('NOT HTTP AT ALL\r\n\r\n'));
    expect(garbled.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(garbled.body).toEqual({ error: { code: 'invalid_json', message: expect.stringContaining('HTTP/1.1') } });
    const huge = read(await exchange(`GET /api/v1/stats HTTP/1.1\r\nhost: x\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(huge.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(huge.body.error).toMatchObject({ code: 'invalid_json', message: expect.stringContaining('16 KiB') });
    for (const answer of [garbled, huge]) {
      expect(answer.head).toContain('content-type: application/json');
      expect(answer.head).toContain('ratelimit-policy: ');
      expect(answer.head).toContain('access-control-allow-origin: *');
    }
  });

  it('answers a browser preflight from another origin', async () => {
    const { origin } = await listen();
    const response = await fetch(`${origin}/api/v1/services/batch`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  });

  // Each request awaits its host's DNS answer between reading the body and queuing: a route that looked for the
  // earlier record before that await and inserted after it would queue many.
  it('queues exactly one record for 200 concurrent identical submits', async () => {
    const { origin, db } = await listen();
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${origin}/api/v1/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: 'https://burst.example/pay' }) }).then((r) => r.json()),
      ),
    );
    expect(new Set(responses.map((r) => r.id)).size).toBe(1);
    expect(responses.filter((r) => r.deduplicated === false)).toHaveLength(1);
    expect(db.prepare('SELECT count(*) AS n FROM submissions').get()).toEqual({ n: 1 });
  });
});

describe('npm start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'psi-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 }));

  /** Starts `npm start` and answers the URL it logs, with a stop function. */
  async function start(args: string[], env: Record<string, string>) {
    const child = spawn('npm', ['start', '--silent', '--', ...args], {
      env: { ...process.env, PORT: '0', DIST_DIR: join(dir, 'dist'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    /** Stops the whole process group (npm, the server, a crawl in flight) and waits until none of it is left. */
    const stop = async () => {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      for (let i = 0; i < 100 && isGroupAlive(child.pid!); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    };
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL logged: ${output}`)), 20_000);
      child.stdout.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    }).catch(async (error) => {
      await stop();
      throw error;
    });
    return { url, stop, output: () => output };
  }

  it('creates and seeds a new database, serves the index, says where to open it, and says goodbye', async () => {
    const { url, stop, output } = await start(['--no-crawl'], { DATABASE_PATH: join(dir, 'nested', 'index.db') });
    try {
      await expect.poll(output).toContain(`Open ${new URL(url).origin}/ in a browser`);
      await expect.poll(output).toContain('No probe passes (--no-crawl)');
      const stats = await (await fetch(new URL('/api/v1/stats', url))).json();
      expect(stats.total).toBeGreaterThan(300);
      expect(stats.live).toBe(0);
      expect(stats.last_probe_at).toBeNull();
      const list = await (await fetch(new URL('/api/v1/services?rail=mpp&limit=1', url))).json();
      expect(list.counts.total).toBeGreaterThan(50);
      expect(list.services[0].live).toBeNull();
      const detail = await fetch(new URL(`/api/v1/services/${list.services[0].id}`, url));
      expect([detail.status, detail.statusText]).toEqual([200, 'OK']);
      // The second answer comes from memory, as bytes: the same text and length as the first, read from SQLite.
      const again = await fetch(detail.url);
      const [text, textAgain] = [await detail.clone().text(), await again.text()];
      expect(textAgain).toBe(text);
      expect([detail.headers.get('content-length'), again.headers.get('content-length')]).toEqual(Array(2).fill(String(Buffer.byteLength(text))));
      const unchanged = await fetch(detail.url, { headers: { 'if-none-match': detail.headers.get('etag')! } });
      expect([unchanged.status, unchanged.statusText]).toEqual([304, 'Not Modified']);
    } finally {
      await stop();
    }
    expect(output()).toMatch(/\nStopping: [^\n]+\nPayable-Service Index stopped\. Goodbye\.\n$/);
    expect(output().match(/Stopping:/g), 'one stop, however many signals').toHaveLength(1);
  });

  it('probes on a schedule, recording what cannot be reached as not live, and says how often', async () => {
    const { url, stop, output } = await start([], { DATABASE_PATH: join(dir, 'scheduled.db'), DISCOVERY_INTERVAL: '1h', PROBE_INTERVAL: '1h' });
    try {
      await expect.poll(output).toContain('A probe pass now and every 1 h (PROBE_INTERVAL); the directories are read every 1 h (DISCOVERY_INTERVAL).');
      let stats = { last_probe_at: null as string | null, probed: 0 };
      for (let i = 0; i < 100 && stats.last_probe_at === null; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        stats = await (await fetch(new URL('/api/v1/stats', url))).json();
      }
      expect(stats.last_probe_at).not.toBeNull();
      expect(stats.probed).toBeGreaterThan(0);
    } finally {
      await stop();
    }
  });
});

function isGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
