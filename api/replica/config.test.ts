import { describe, expect, it } from 'vitest';
import { readReplicaConfig } from './config.ts';
import { isPrimaryOnly, isWrite } from './writes.ts';

describe('readReplicaConfig', () => {
  it('is null for the writer, and reads a replica with its defaults', () => {
    expect(readReplicaConfig({})).toBeNull();
    const config = readReplicaConfig({ REPLICA_OF: 'https://cdn.example/snapshots/index.db.gz', PRIMARY_URL: 'https://index.example/', DATABASE_PATH: '/srv/psi/index.db' });
    expect(config).toEqual({
      source: 'https://cdn.example/snapshots/index.db.gz', primaryUrl: 'https://index.example', intervalMs: 60_000, dir: '/srv/psi/replica', maxBytes: 4 * 1024 ** 3,
    });
  });

  it('reads a publish target (s3://BUCKET/PREFIX) as a Litestream replica to follow, and refuses a malformed one', () => {
    expect(readReplicaConfig({ REPLICA_OF: 's3://my-bucket/index', PRIMARY_URL: 'https://a.example' })!.source).toBe('s3://my-bucket/index');
    expect(() => readReplicaConfig({ REPLICA_OF: 's3://A_B/index', PRIMARY_URL: 'https://a.example' })).toThrow(/REPLICA_OF wants s3:\/\/BUCKET\/PREFIX/);
  });

  it.each([['1048576', 1_048_576], ['512K', 524_288], ['300MiB', 314_572_800], ['2g', 2_147_483_648], ['4GB', 4_294_967_296]])('REPLICA_MAX_BYTES=%s is %i bytes', (value, bytes) => {
    expect(readReplicaConfig({ REPLICA_OF: 'https://cdn.example/i.db.gz', PRIMARY_URL: 'https://a.example', REPLICA_MAX_BYTES: value })!.maxBytes).toBe(bytes);
  });

  it('refuses a replica without a primary, or with URLs that are not http(s)', () => {
    expect(() => readReplicaConfig({ REPLICA_OF: 'https://cdn.example/index.db' })).toThrow(/needs PRIMARY_URL/);
    expect(() => readReplicaConfig({ REPLICA_OF: 'file:///etc/passwd', PRIMARY_URL: 'https://a.example' })).toThrow(/REPLICA_OF must be an absolute http\(s\) URL/);
    expect(() => readReplicaConfig({ REPLICA_OF: 'https://cdn.example/index.db', PRIMARY_URL: 'index.example' })).toThrow(/PRIMARY_URL must be/);
    expect(() => readReplicaConfig({ REPLICA_OF: 'https://cdn.example/index.db', PRIMARY_URL: 'https://a.example', REPLICA_INTERVAL: 'soon' })).toThrow(/REPLICA_INTERVAL/);
    for (const size of ['big', '0', '-5', '1.5G', '4T']) {
      expect(() => readReplicaConfig({ REPLICA_OF: 'https://cdn.example/i.db.gz', PRIMARY_URL: 'https://a.example', REPLICA_MAX_BYTES: size })).toThrow(/REPLICA_MAX_BYTES must be a size/);
    }
  });
});

describe('isWrite', () => {
  it.each([
    ['POST', '/api/v1/submit', true], ['POST', '/api/v1/purchases?x=1', true], ['DELETE', '/api/v1/webhooks/wh_1', true],
    ['POST', '/mcp', true], ['PATCH', '/api/v1/owners/x', true],
    ['GET', '/api/v1/services', false], ['HEAD', '/api/v1/stats', false], ['OPTIONS', '/api/v1/submit', false],
    ['POST', '/services/a', false], ['GET', '/mcp', false], ['POST', '/mcpx', false],
  ])('%s %s: %s', (method, url, expected) => {
    expect(isWrite(method, url)).toBe(expected);
  });
});

describe('isPrimaryOnly', () => {
  it.each([
    ['GET', '/api/v1/webhooks/wh_1', true], ['GET', '/api/v1/webhooks/wh_1/deliveries?limit=5', true], ['GET', '/api/v1/purchases/p_1', true],
    ['GET', '/api/v1/claims', true], ['GET', '/purchase/p_1', true], ['GET', '/submissions/s_1', true], ['GET', '/api/v1/submissions/s_1', true],
    ['HEAD', '/api/v1/webhooks', true], ['GET', 'http://replica.example/api/v1/purchases/p_1', true],
    ['OPTIONS', '/api/v1/webhooks', false], ['GET', '/api/v1/services/webhooks', false], ['GET', '/api/v1/webhooksx', false],
    ['GET', '/purchases-guide', false], ['GET', '/api/v1/services', false], ['GET', '/services/a', false],
  ])('%s %s: %s', (method, url, expected) => {
    expect(isPrimaryOnly(method, url)).toBe(expected);
  });
});
