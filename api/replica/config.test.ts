import { describe, expect, it } from 'vitest';
import { readReplicaConfig } from './config.ts';
import { isWrite } from './writes.ts';

describe('readReplicaConfig', () => {
  it('is null for the writer, and reads a replica with its defaults', () => {
    expect(readReplicaConfig({})).toBeNull();
    const config = readReplicaConfig({ REPLICA_OF: 'https://cdn.example/snapshots/index.db', PRIMARY_URL: 'https://index.example/', DATABASE_PATH: '/srv/psi/index.db' });
    expect(config).toEqual({ source: 'https://cdn.example/snapshots/index.db', primaryUrl: 'https://index.example', intervalMs: 60_000, dir: '/srv/psi/replica' });
  });

  it('refuses a replica without a primary, or with URLs that are not http(s)', () => {
    expect(() => readReplicaConfig({ REPLICA_OF: 'https://cdn.example/index.db' })).toThrow(/needs PRIMARY_URL/);
    expect(() => readReplicaConfig({ REPLICA_OF: 'file:///etc/passwd', PRIMARY_URL: 'https://a.example' })).toThrow(/REPLICA_OF must be an absolute http\(s\) URL/);
    expect(() => readReplicaConfig({ REPLICA_OF: 'https://cdn.example/index.db', PRIMARY_URL: 'index.example' })).toThrow(/PRIMARY_URL must be/);
    expect(() => readReplicaConfig({ REPLICA_OF: 'https://cdn.example/index.db', PRIMARY_URL: 'https://a.example', REPLICA_INTERVAL: 'soon' })).toThrow(/REPLICA_INTERVAL/);
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
