/**
 * The wildcard check: does the host answer the same 402 on a path it never listed? A host that does (a catch-all
 * paywall) says nothing by its challenge about whether the listed endpoint exists. One random sibling path, the same
 * method, at most once a day per host (crawler/probe-pass.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Rail } from '../data/types.ts';

/** How long a host's wildcard check stands before it is made again. */
export const WILDCARD_CHECK_EVERY_MS = 86_400_000;

/**
 * The URL with its last path segment replaced by a random one, query and fragment dropped.
 * @example toSiblingUrl('https://a.example/v1/quote?x=1') // 'https://a.example/v1/psi-3f9a0c1b2d4e'
 */
export function toSiblingUrl(url: string, token = randomBytes(6).toString('hex')): string {
  const sibling = new URL(url);
  const segments = sibling.pathname.split('/');
  segments[segments.length - 1] = `psi-${token}`;
  sibling.pathname = segments.join('/');
  sibling.search = '';
  sibling.hash = '';
  return sibling.href;
}

/** Whether the sibling's answer is the same 402 as the main endpoint's: a 402 detecting the same rails. */
export function isSame402(main: { status_code: number | null; detected_rails: Rail[] }, sibling: { status_code: number | null; detected_rails: Rail[] }): boolean {
  if (main.status_code !== 402 || sibling.status_code !== 402) return false;
  const rails = new Set(main.detected_rails);
  return sibling.detected_rails.length === rails.size && sibling.detected_rails.every((rail) => rails.has(rail));
}

/** Whether a host's wildcard check is due: never made, or made WILDCARD_CHECK_EVERY_MS or longer ago. */
export function isWildcardCheckDue(last: { checked_at: string } | null, now: Date): boolean {
  return last === null || now.getTime() - Date.parse(last.checked_at) >= WILDCARD_CHECK_EVERY_MS;
}
