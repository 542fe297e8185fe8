import { RAILS } from './values.ts';

/**
 * What a service is called wherever the index shows it (the API, MCP, pages, feeds): the one rule that turns a
 * directory's name that says nothing of the service into its host.
 */

/** Names that only name how a service is paid (`x402`, `pay`), never which service it is. */
const PROTOCOL_WORDS: ReadonlySet<string> = new Set([...RAILS, '402', 'pay', 'payment', 'payments']);

/**
 * The name shown: the host as written when the directory's name is only a slug of it, written as one (`402bnb` for
 * `402bnb.fun`, the id `api-firecrawl-dev`), or a bare protocol word (`x402`, `pay`), since the host says more and is
 * what people type. A name with capitals was written by someone as a brand (`OpenWeather` at openweather.example): kept.
 * @example toDisplayName('402bnb', 'https://402bnb.fun/') // '402bnb.fun'
 * @example toDisplayName('x402', 'https://api.example.com/v1/x402') // 'api.example.com'
 */
export function toDisplayName(name: string, endpoint: string): string {
  const host = toHost(endpoint);
  if (!host) return name;
  const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const labels = host.replace(/:\d+$/, '').split('.');
  const slugs = new Set([squash(host), ...labels.map((_, index) => squash(labels.slice(0, index + 1).join('.')))]);
  const said = squash(name);
  const slug = name === name.toLowerCase() && slugs.has(said);
  return said === '' || slug || PROTOCOL_WORDS.has(said) ? host : name;
}

/** The host of a URL as written (`api.firecrawl.dev`, with a port when it has one), or null. */
export function toHost(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}
