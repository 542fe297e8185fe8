/**
 * Example values for a call, made from its schema where the directory gives none: each property's `default`, its
 * first `examples` or `enum` value, else a placeholder of its type. The listing page's curl and the Bazaar items'
 * `info.input` use them, so both show a call that passes the endpoint's own schema. Pure; browser-safe.
 */

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

const PLACEHOLDERS: Readonly<Record<string, unknown>> = { string: 'string', integer: 0, number: 0, boolean: false, array: [], null: null };

/** One value a schema accepts, as far as a few keywords tell; depth-bounded, so a recursive schema ends. */
function toExampleValue(schema: unknown, depth = 0): unknown {
  if (!isSchema(schema)) return 'string';
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if ((type === 'object' || isSchema(schema.properties)) && depth < 4) return toExampleObject(schema, depth + 1);
  return PLACEHOLDERS[typeof type === 'string' ? type : 'string'] ?? 'string';
}

/**
 * An object of example values, one per property of an object schema; {} when it names none.
 * @example toExampleObject({ type: 'object', properties: { q: { type: 'string' }, n: { enum: [5, 10] } } }) // { q: 'string', n: 5 }
 */
export function toExampleObject(schema: unknown, depth = 0): Record<string, unknown> {
  if (!isSchema(schema) || !isSchema(schema.properties)) return {};
  return Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, toExampleValue(property, depth)]));
}
