import { describe, expect, it } from 'vitest';
import { readConfig } from './config.ts';

describe('readConfig', () => {
  it('takes BASE_URL and STAGING_URL only as absolute http(s) URLs, naming the setting otherwise', () => {
    expect(readConfig({ BASE_URL: 'https://index.example', STAGING_URL: '' })).toMatchObject({ baseUrl: 'https://index.example', stagingUrl: null });
    expect(readConfig({})).toMatchObject({ baseUrl: null, stagingUrl: null });
    expect(() => readConfig({ BASE_URL: '/' })).toThrow(/BASE_URL must be an absolute http\(s\) URL/);
    expect(() => readConfig({ STAGING_URL: 'ftp://files.example' })).toThrow(/STAGING_URL/);
  });
});
