import { describe, expect, it } from 'vitest';
import { toServiceId } from './service-id.ts';

describe('toServiceId', () => {
  it.each([
    ['https://api.Example.com:8443/x', 'api-example-com-8443'],
    ['https://api.example.com/v1/search?q=1', 'api-example-com'],
    ['http://API.EXAMPLE.COM', 'api-example-com'],
    ['https://api.example.com:443/', 'api-example-com'],
    ['https://3672fa34-7f25-00-1i1a41syjss7w.sisko.replit.dev/', '3672fa34-7f25-00-1i1a41syjss7w-sisko-replit-dev'],
    ['https://mpp.orthogonal.com/tavily/search', 'mpp-orthogonal-com'],
    ['https://user:secret@host.example/', 'host-example'],
    ['acp://etsy.com', 'etsy-com'],
    ['api.Example.com:8443', 'api-example-com-8443'],
    ['https://[::1]:8080/', '1-8080'],
  ])('%s -> %s', (url, id) => {
    expect(toServiceId(url)).toBe(id);
  });

  it('throws on text that is not a URL', () => {
    expect(() => toServiceId('https://')).toThrow();
  });
});
