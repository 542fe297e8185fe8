/**
 * URL templates (`/items/{id}`, `/v1/:version/quote`, `/files/*`): a directory may list a resource by its route rather
 * than a URL that can be called. Such a URL is never probed as written, since a 404 or a 402 for the literal
 * `{id}` says nothing about the service. Pure.
 */

/** `:param`, `*`, or `{param}` (which URL normalization writes as `%7Bparam%7D`) after the host. */
const TEMPLATE_PART = /\/:([A-Za-z_][A-Za-z0-9_]*)|\{([^}/]*)\}|%7B([^/]*?)%7D|\*/gi;

function pathOf(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
}

/**
 * Whether a URL is a template.
 * @example isUrlTemplate('https://api.example.com/items/{id}') // true; isUrlTemplate('https://api.example.com/items/7') // false
 */
export function isUrlTemplate(url: string): boolean {
  return new RegExp(TEMPLATE_PART.source, 'i').test(pathOf(url));
}

/**
 * The template filled from the listing's own example (an object naming each parameter, as Bazaar's `info.input`
 * gives its body), or null when the example does not give every parameter a text or number value. `*` is never
 * filled: it names no parameter.
 * @example fillUrlTemplate('https://a.example/items/{id}', { id: 7 }) // 'https://a.example/items/7'
 */
export function fillUrlTemplate(url: string, example: unknown): string | null {
  if (typeof example !== 'object' || example === null || Array.isArray(example)) return null;
  const values = example as Record<string, unknown>;
  let complete = true;
  const origin = url.slice(0, url.length - pathOf(url).length);
  const path = pathOf(url).replace(TEMPLATE_PART, (part: string, colon?: string, brace?: string, encoded?: string) => {
    const name = colon ?? brace ?? (encoded === undefined ? undefined : decodeURIComponent(encoded));
    const value = name === undefined ? undefined : values[name.trim()];
    if (typeof value !== 'string' && typeof value !== 'number') {
      complete = false;
      return part;
    }
    return `${colon === undefined ? '' : '/'}${encodeURIComponent(String(value))}`;
  });
  return complete ? `${origin}${path}` : null;
}
