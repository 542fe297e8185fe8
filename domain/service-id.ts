/**
 * The service id of an endpoint URL: its host (and port), lower-cased, every run of other characters than a-z0-9 as `-`.
 * A service is a host, so every layer (the crawler merging listings, the API answering a check) names it this way.
 * @example toServiceId('https://api.Example.com:8443/x') // 'api-example-com-8443'; toServiceId('acp://etsy.com') // 'etsy-com'
 */
export function toServiceId(url: string): string {
  const withScheme = url.includes('://') ? url : `https://${url}`;
  const { host } = new URL(withScheme);
  if (host === '') throw new TypeError(`no host in ${url}`);
  return host.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}
