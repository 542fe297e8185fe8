import { describe, expect, it } from 'vitest';
import { digestSecret, matchesDigest, readBearer } from './bearer.ts';

describe('bearer secrets', () => {
  it('reads the secret of a Bearer header in any case, and nothing from other forms', () => {
    expect(readBearer('Bearer psi_abc')).toBe('psi_abc');
    expect(readBearer('bearer   whsec_x/y+z= ')).toBe('whsec_x/y+z=');
    expect(readBearer(undefined)).toBeUndefined();
    expect(readBearer('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(readBearer('Bearer two words')).toBeUndefined();
    expect(readBearer('Bearer ')).toBeUndefined();
  });

  it('matches a secret only against its own digest', () => {
    const held = digestSecret('whsec_right');
    expect(matchesDigest('whsec_right', held)).toBe(true);
    expect(matchesDigest('whsec_wrong', held)).toBe(false);
    expect(matchesDigest('', held)).toBe(false);
    expect(digestSecret('whsec_right').toString('hex')).toHaveLength(64);
  });
});
