import { once } from 'node:events';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertPublicUrl,
  createGuardedLookup,
  isForbiddenAddress,
  parseAllowList,
  TargetError,
  toHostAddress,
  type TargetErrorReason,
} from './guard.ts';

const noAllow = parseAllowList(undefined);
const resolvingTo = (...addresses: string[]) => async (_host: string) => addresses;
const unresolvable = async (_host: string): Promise<string[]> => {
  throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
};

async function reasonOf(promise: Promise<unknown>): Promise<TargetErrorReason | 'accepted'> {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    if (error instanceof TargetError) return error.reason;
    throw error;
  }
}

describe('toHostAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[::FFFF:127.0.0.1]', '::ffff:127.0.0.1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['example.com', undefined],
    ['deadbeef', undefined],
    ['1.2.3.4.5', undefined],
  ])('%s -> %s', (hostname, expected) => {
    expect(toHostAddress(hostname)).toBe(expected);
  });
});

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['0.0.0.0', true],
    ['10.0.0.1', true],
    ['100.64.0.1', true],
    ['100.127.255.255', true],
    ['100.100.100.200', true],
    ['169.254.169.254', true],
    ['172.16.5.4', true],
    ['172.31.255.255', true],
    ['192.0.0.8', true],
    ['192.0.2.1', true],
    ['192.168.1.1', true],
    ['198.18.0.1', true],
    ['203.0.113.7', true],
    ['224.0.0.1', true],
    ['240.0.0.1', true],
    ['255.255.255.255', true],
    ['::', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::127.0.0.1', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['2002:7f00:1::', true],
    ['2002:c0a8:101::1', true],
    ['fc00::1', true],
    ['fd00::1', true],
    ['fd00:ec2::254', true],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['ff02::1', true],
    ['100::1', true],
    ['2001::1', true],
    ['2001:db8::1', true],
    ['not-an-address', true],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['100.63.255.255', false],
    ['100.128.0.0', false],
    ['172.15.255.255', false],
    ['172.32.0.1', false],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::808:808', false],
    ['2002:808:808::1', false],
    ['2606:4700::1111', false],
    ['2001:4860:4860::8888', false],
  ])('%s -> %s', (address, expected) => {
    expect(isForbiddenAddress(address, noAllow)).toBe(expected);
  });

  it.each([
    ['127.0.0.1', false],
    ['::ffff:127.0.0.1', false],
    ['127.0.0.2', true],
    ['10.200.3.4', false],
    ['11.0.0.1', false],
    ['::1', false],
    ['::2', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
  ])('with allow list 127.0.0.1,10.0.0.0/8,::1: %s -> %s', (address, expected) => {
    expect(isForbiddenAddress(address, parseAllowList(' 127.0.0.1, 10.0.0.0/8,::1 '))).toBe(expected);
  });
});

describe('parseAllowList', () => {
  it.each([undefined, '', ' , '])('%j allows nothing', (value) => {
    expect(isForbiddenAddress('127.0.0.1', parseAllowList(value))).toBe(true);
  });

  it('accepts IPv6 CIDRs', () => {
    expect(isForbiddenAddress('fd12::7', parseAllowList('fd00::/8'))).toBe(false);
  });

  it.each(['nope', '10.0.0.0/33', '::1/129', '10.0.0.0/', '/8', '10.0.0.0/8/1', '10.0.0.0/ 8', '127.1', '[::1]'])(
    'throws on %j',
    (value) => {
      expect(() => parseAllowList(`127.0.0.1,${value}`)).toThrow(/ALLOW_PRIVATE_TARGETS: ".*" is not an IP/);
    },
  );
});

describe('assertPublicUrl', () => {
  it.each<[string, TargetErrorReason]>([
    ['http://127.0.0.1/', 'private_address'],
    ['http://127.1/', 'private_address'],
    ['http://2130706433/', 'private_address'],
    ['http://0x7f000001/', 'private_address'],
    ['http://0177.0.0.1/', 'private_address'],
    ['http://[::1]/', 'private_address'],
    ['http://[::ffff:127.0.0.1]/', 'private_address'],
    ['http://[::ffff:7f00:1]/', 'private_address'],
    ['http://10.0.0.1/', 'private_address'],
    ['http://172.16.5.4/', 'private_address'],
    ['http://172.31.255.255/', 'private_address'],
    ['http://192.168.1.1:8080/x', 'private_address'],
    ['http://169.254.169.254/latest/meta-data/', 'private_address'],
    ['http://0.0.0.0/', 'private_address'],
    ['http://100.64.0.1/', 'private_address'],
    ['http://100.100.100.200/', 'private_address'],
    ['http://[fd00::1]/', 'private_address'],
    ['http://[fe80::1]/', 'private_address'],
    ['http://[fd00:ec2::254]/', 'private_address'],
    ['http://[64:ff9b::7f00:1]/', 'private_address'],
    ['http://[2002:7f00:1::]/', 'private_address'],
    ['http://localhost/', 'private_host'],
    ['http://localhost.:3000/', 'private_host'],
    ['http://LocalHost/', 'private_host'],
    ['http://foo.localhost/', 'private_host'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'private_host'],
    ['http://db.internal/', 'private_host'],
    ['http://printer.local/', 'private_host'],
    ['file:///etc/passwd', 'not_http'],
    ['ftp://x', 'not_http'],
    ['javascript:alert(1)', 'not_http'],
    ['gopher://example.com/', 'not_http'],
    ['http://user:pass@example.com', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    ['/api/v1/services', 'invalid_url'],
    ['example.com/pay', 'invalid_url'],
    ['//example.com/', 'invalid_url'],
    ['', 'invalid_url'],
    ['http://', 'invalid_url'],
  ])('refuses %s (%s)', async (url, reason) => {
    // The lookup says "public", so every refusal here comes from the URL itself.
    expect(await reasonOf(assertPublicUrl(url, { allow: noAllow, lookup: resolvingTo('8.8.8.8') }))).toBe(reason);
  });

  it.each([
    ['loopback', ['127.0.0.1']],
    ['IPv6 loopback', ['::1']],
    ['one public and one private address', ['93.184.215.14', '10.1.2.3']],
    ['a mapped private address', ['::ffff:192.168.0.1']],
  ])('refuses a host name resolving to %s', async (_label, addresses) => {
    const url = 'https://rebind.example/';
    expect(await reasonOf(assertPublicUrl(url, { allow: noAllow, lookup: resolvingTo(...addresses) }))).toBe(
      'private_address',
    );
  });

  it.each(['http://8.8.8.8/', 'http://172.32.0.1/', 'https://1.1.1.1/', 'http://[2606:4700::1111]:8443/x'])(
    'accepts %s without resolving',
    async (url) => {
      const accepted = await assertPublicUrl(url, { allow: noAllow, lookup: unresolvable });
      expect(accepted.href).toBe(url);
    },
  );

  it('accepts a host name resolving only to public addresses', async () => {
    const lookup = resolvingTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c');
    expect((await assertPublicUrl('https://example.com', { allow: noAllow, lookup })).href).toBe('https://example.com/');
  });

  it('skips resolving when resolve is false, but still refuses private names', async () => {
    const options = { allow: noAllow, lookup: resolvingTo('127.0.0.1'), resolve: false };
    expect(await reasonOf(assertPublicUrl('https://example.com/', options))).toBe('accepted');
    expect(await reasonOf(assertPublicUrl('http://foo.localhost/', options))).toBe('private_host');
  });

  it.each([
    ['a failing lookup', unresolvable],
    ['an empty answer', resolvingTo()],
  ])('treats %s as dns_failed, or accepts it when asked', async (_label, lookup) => {
    const url = 'https://not-yet.example/';
    const refusal = assertPublicUrl(url, { allow: noAllow, lookup }).catch((error: unknown) => error);
    expect(await refusal).toMatchObject({ reason: 'dns_failed', host: 'not-yet.example', message: 'refused: host did not resolve' });
    expect(await reasonOf(assertPublicUrl(url, { allow: noAllow, lookup, onUnresolvable: 'reject' }))).toBe('dns_failed');
    expect(await reasonOf(assertPublicUrl(url, { allow: noAllow, lookup, onUnresolvable: 'accept' }))).toBe('accepted');
  });

  it('reports the refused address and a short message', async () => {
    const refusal = assertPublicUrl('http://0x7f000001/', { allow: noAllow }).catch((error: unknown) => error);
    expect(await refusal).toMatchObject({
      name: 'TargetError',
      reason: 'private_address',
      address: '127.0.0.1',
      message: 'refused: private address',
    });
  });

  it.each([
    ['http://127.0.0.1:3000/', resolvingTo()],
    ['http://[::1]/', resolvingTo()],
    ['http://fleet-node.test/', resolvingTo('10.4.0.9')],
  ])('accepts %s when the allow list covers it', async (url, lookup) => {
    const allow = parseAllowList('127.0.0.1,10.0.0.0/8,::1');
    expect(await reasonOf(assertPublicUrl(url, { allow, lookup }))).toBe('accepted');
    expect(await reasonOf(assertPublicUrl(url, { allow: noAllow, lookup }))).toBe('private_address');
  });
});

describe('createGuardedLookup', () => {
  const answering =
    (...addresses: string[]): LookupFunction =>
    (_hostname, options, callback) => {
      const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      const [first = { address: '', family: 4 }] = entries;
      if (options.all === true) callback(null, entries);
      else callback(null, first.address, first.family);
    };
  const lookupWith = (lookup: LookupFunction, all: boolean) =>
    new Promise<unknown>((resolve) => lookup('svc.test', { all }, (error, address) => resolve(error ?? address)));

  it.each([
    [['93.184.215.14'], false, '93.184.215.14'],
    [['93.184.215.14', '2606:4700::1111'], true, [{ address: '93.184.215.14', family: 4 }, { address: '2606:4700::1111', family: 6 }]],
  ])('passes public answers through: %j (all: %s)', async (addresses, all, expected) => {
    expect(await lookupWith(createGuardedLookup(noAllow, answering(...addresses)), all)).toEqual(expected);
  });

  it.each([
    [['10.0.0.7'], false],
    [['93.184.215.14', '169.254.169.254'], true],
  ])('fails on a forbidden answer: %j (all: %s)', async (addresses, all) => {
    expect(await lookupWith(createGuardedLookup(noAllow, answering(...addresses)), all)).toMatchObject({
      reason: 'private_address',
      host: 'svc.test',
    });
  });

  it('passes resolver errors through', async () => {
    const failing: LookupFunction = (_hostname, _options, callback) => callback(new Error('ENOTFOUND'), '');
    expect(await lookupWith(createGuardedLookup(noAllow, failing), false)).toMatchObject({ message: 'ENOTFOUND' });
  });

  describe('over a real socket', () => {
    let server: Server;
    let port: number;
    let connections = 0;

    beforeAll(async () => {
      server = createServer((_request, response) => response.end('ok'));
      server.on('connection', () => (connections += 1));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const request = (lookup: LookupFunction) =>
      new Promise<string>((resolve, reject) => {
        get({ host: 'localhost', family: 4, port, path: '/', lookup, agent: false }, (response) => {
          response.setEncoding('utf8');
          let body = '';
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve(body));
        }).on('error', reject);
      });

    it('refuses to connect to 127.0.0.1 without the allow list', async () => {
      const before = connections;
      await expect(request(createGuardedLookup(noAllow))).rejects.toMatchObject({
        reason: 'private_address',
        address: '127.0.0.1',
      });
      expect(connections).toBe(before);
    });

    it('connects when the allow list covers 127.0.0.1', async () => {
      expect(await request(createGuardedLookup(parseAllowList('127.0.0.1')))).toBe('ok');
    });
  });
});
