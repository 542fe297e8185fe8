/**
 * Turning stored values into the words and numbers a page shows. Pure functions; Astro escapes their output.
 */

export { toDisplayName, toHost } from '../../../domain/names.ts';

/**
 * A USD amount as `$<amount>`, without trailing zeros, or null when unknown.
 * @example formatUsd(0.01) // '$0.01'
 */
export function formatUsd(usd: number | null): string | null {
  if (usd === null || !Number.isFinite(usd) || usd < 0) return null;
  if (usd === 0) return '$0';
  if (usd >= 1) return `$${Number.isInteger(usd) ? usd.toFixed(0) : usd.toFixed(2)}`;
  const digits = Math.min(10, Math.max(2, 1 - Math.floor(Math.log10(usd)) + 3));
  const [whole, fraction = ''] = usd.toFixed(digits).split('.');
  return `$${whole}.${fraction.replace(/0+$/, '').padEnd(2, '0')}`;
}

/**
 * A time as `YYYY-MM-DD HH:MM UTC`, or null.
 * @example formatUtc('2026-11-01T12:05:09.000Z') // '2026-11-01 12:05 UTC'
 */
export function formatUtc(iso: string | null): string | null {
  if (!iso) return null;
  // The common case, a stored UTC time (`2026-11-01T12:05:09.000Z`), needs no parsing.
  if (iso.length >= 17 && iso[10] === 'T' && iso.endsWith('Z') && !Number.isNaN(Date.parse(iso))) {
    return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  }
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * A time as its UTC date `YYYY-MM-DD`, or null.
 * @example formatDate('2026-11-01T12:05:09.000Z') // '2026-11-01'
 */
export function formatDate(iso: string | null): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date.toISOString().slice(0, 10);
}

/**
 * A count with its noun, singular or plural.
 * @example plural(2, 'endpoint') // '2 endpoints'
 */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : nouns}`;
}

/**
 * A list of words joined as prose.
 * @example joinWords(['x402', 'mpp', 'acp']) // 'x402, mpp and acp'
 */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * The URL as a link target when it is an absolute http(s) URL of one resource, else null (javascript:, data:,
 * acp://, relative, or a template such as `/:version/files`, which cannot be followed as it is).
 * Only these become links, always with `rel="nofollow noopener"`.
 * @example toSafeHref('javascript:alert(1)') // null
 */
export function toSafeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  const trimmed = url.trim();
  if (!/^https?:\/\//i.test(trimmed) || listTemplateParams(trimmed).length > 0) return null;
  try {
    const parsed = new URL(trimmed);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    if (!parsed.hostname) return null;
    return parsed.href;
  } catch {
    return null;
  }
}

/**
 * The parameters of a URL template, as written (`:version`, `{id}`, also percent-encoded); none for a URL of one
 * resource. Only path segments count as `:name`, so ports and times in a query (`?at=12:30`) are not parameters.
 * @example listTemplateParams('https://a.example/:version/agents/{id}') // [':version', '{id}']
 */
export function listTemplateParams(url: string): string[] {
  const afterHost = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/#.*$/s, '').replace(/%7B/gi, '{').replace(/%7D/gi, '}');
  return [...new Set([...afterHost.matchAll(/\{[^{}/?&=]+\}|\/(:[A-Za-z_][\w-]*)/g)].map((match) => match[1] ?? match[0]))];
}

/** The attributes every link to a place named by directory data carries. */
export const EXTERNAL_REL = 'nofollow noopener';

/**
 * The scheme and host of a URL (`https://api.example.com`), or the URL itself when it cannot be parsed.
 * @example toBaseUrl('https://api.example.com/v1/pay?x=1') // 'https://api.example.com'
 */
export function toBaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return url;
  }
}

/**
 * An endpoint as its path when it is on the base URL's origin, else the full URL.
 * @example toPathOrUrl('https://a.example/v1/x?q=1', 'https://a.example') // '/v1/x?q=1'
 */
export function toPathOrUrl(url: string, baseUrl: string): string {
  try {
    const parsed = new URL(url);
    if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === baseUrl) {
      // As listed when it starts with the origin, so a template's `{id}` is not shown percent-encoded.
      return url.startsWith(`${baseUrl}/`) ? url.slice(baseUrl.length) : `${parsed.pathname}${parsed.search}`;
    }
  } catch {
    // not a URL: shown as given
  }
  return url;
}

/**
 * Text between the Unicode marks FSI and PDI, so direction controls in it (U+202E) cannot reorder what follows.
 * For directory text where markup cannot go (`<title>`, `<option>`); in markup it goes in a `<bdi>`.
 * @example isolateText('Name') // '\u2068Name\u2069'
 */
export function isolateText(text: string): string {
  return `\u2068${text}\u2069`;
}

/**
 * A word quoted for a POSIX shell when it holds anything but plainly safe URL characters.
 * @example shellQuote("https://a.example/x?a=1&b='2'") // "'https://a.example/x?a=1&b='\\''2'\\'''"
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_\-.:/~%+=@,]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Text cut to at most `max` characters on a word boundary, with an ellipsis when cut.
 * @example truncate('a long sentence here', 10) // 'a long…'
 */
export function truncate(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space >= max * 0.5 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * A share as a percentage with one decimal (`99.5 %`), or null when there is nothing to divide.
 * @example formatPercent(199, 200) // '99.5 %'
 */
export function formatPercent(part: number, whole: number): string | null {
  if (whole <= 0) return null;
  const percent = (part / whole) * 100;
  const text = percent === 100 || percent === 0 ? percent.toFixed(0) : percent.toFixed(1);
  return `${text} %`;
}

/**
 * Text longer than `max` shortened in the middle, keeping its start and end (a contract address, a long host);
 * pages show the whole value beside it (a `title`, the listing page).
 * @example shortenMiddle('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 13) // '0x8335…A02913'
 */
export function shortenMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}
