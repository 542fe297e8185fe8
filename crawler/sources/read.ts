/** Defensive readers for directory JSON of unknown shape. They return null instead of throwing. */
import { cleanText } from '../../domain/text.ts';

/** Whether a JSON value is an object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string, cleaned (domain/text.ts) and trimmed, or null: every directory's text enters here. */
export function readText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = cleanText(value).trim();
  return text === '' ? null : text;
}

/** The strings of an array (trimmed, empty ones dropped); [] when the value is not an array. */
export function readTextList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map(readText).filter((text): text is string => text !== null);
}

/** An absolute http(s) URL with a host, in its normalized form, or null. */
export function readHttpUrl(value: unknown): string | null {
  const text = readText(value);
  if (text === null || !/^https?:\/\//i.test(text)) return null;
  try {
    const url = new URL(text);
    return url.hostname === '' ? null : url.href;
  } catch {
    return null;
  }
}

/** A DNS host name with at least one dot (and optional port), lower-cased, that a URL can carry as it is; or null. */
export function readDomain(value: unknown): string | null {
  const text = readText(value)?.toLowerCase() ?? null;
  if (text === null || !/^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d{1,5})?$/.test(text)) return null;
  return readHttpUrl(`https://${text}/`) === `https://${text}/` ? text : null;
}

/** An HTTP method as the directory wrote it, upper-cased, or null when absent or not a method name. */
export function readMethod(value: unknown): string | null {
  const text = readText(value)?.toUpperCase() ?? null;
  return text !== null && /^[A-Z]{3,7}$/.test(text) ? text : null;
}
