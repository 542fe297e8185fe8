import { z } from 'zod';

/**
 * Text from outside (directories, submissions, owners, operators) as the index keeps it, and as an operator's
 * terminal shows it.
 */

/**
 * What clean text never holds: what XML 1.0 forbids (C0 controls other than tab, newline and carriage return,
 * U+FFFE, U+FFFF, lone surrogates), so every feed stays well-formed; DEL and the C1 controls, which no reader
 * shows; and the bidi controls (marks, embeddings, overrides, isolates), which could reorder the text around a
 * name. Pages wrap untrusted text in isolates of their own (`<bdi>`, `dir="auto"`), which is where direction
 * belongs.
 */
const UNCLEAN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\uFFFE\uFFFF]|\p{Cs}/gu;

/**
 * Text without the characters UNCLEAN names; line ends become `\n` (CRLF and a lone CR both), so text reads the
 * same in a feed, a page and a terminal.
 * @example cleanText('Cheap\u202E API\r\nfast\u0000') // 'Cheap API\nfast'
 */
export function cleanText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(UNCLEAN, '');
}

/**
 * A zod string cleaned before any later check (`.trim()`, `.min()`, `.max()` see the clean text); its JSON Schema
 * is a plain string's.
 * @example cleanTextField({ error: 'must be a string' }).trim().max(200)
 */
export const cleanTextField = (params?: Parameters<typeof z.string>[0]) => z.string(params).overwrite(cleanText);

/**
 * What a terminal would not show as it is: controls (C0, DEL, C1), format characters (bidi controls, zero-width
 * characters, soft hyphens), line and paragraph separators, U+FFFE, U+FFFF and lone surrogates.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\uFFFE\uFFFF]/gu;

/** A character as `\uXXXX` escapes, one per UTF-16 unit (an astral character as its surrogate pair's, as JSON writes it). */
const toEscape = (char: string) =>
  Array.from({ length: char.length }, (_, k) => `\\u${char.charCodeAt(k).toString(16).toUpperCase().padStart(4, '0')}`).join('');

/**
 * Text with every invisible character written as its `\uXXXX` escape, so an operator sees a submitted name as it is.
 * Applied to each line of JSON text (whose strings never hold a raw newline) it keeps the JSON valid and its values
 * unchanged.
 * @example escapeInvisible('Cheap\u202E API') // 'Cheap\\u202E API'
 */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, toEscape);
}
