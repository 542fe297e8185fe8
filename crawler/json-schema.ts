/**
 * Schemas from outside, kept only whole and valid: a JSON Schema 2020-12 object that ajv's 2020 meta-schema accepts,
 * at most MAX_SCHEMA_BYTES of JSON, whose references all stay inside the document. Anything else is dropped whole,
 * never truncated: half a schema would tell an agent wrong things about a call.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isRecord } from './sources/read.ts';

/** The largest schema (or example) kept, as JSON text. */
export const MAX_SCHEMA_BYTES = 32 * 1024;

/** Meta-schema checks only: nothing here compiles or runs a third-party schema. */
const ajv = new Ajv2020({ strict: false, validateFormats: false });

export type JsonSchema = Record<string, unknown>;

/** Whether every `$ref` and `$dynamicRef` is a fragment and no nested `$id` moves the base: same-document only. */
function hasOnlyLocalRefs(value: unknown, root: boolean): boolean {
  if (Array.isArray(value)) return value.every((item) => hasOnlyLocalRefs(item, false));
  if (!isRecord(value)) return true;
  for (const [key, item] of Object.entries(value)) {
    if ((key === '$ref' || key === '$dynamicRef') && !(typeof item === 'string' && item.startsWith('#'))) return false;
    if (key === '$id' && !root) return false;
    if (!hasOnlyLocalRefs(item, false)) return false;
  }
  return true;
}

/** A JSON value kept when its JSON text is at most MAX_SCHEMA_BYTES, else undefined. */
export function toBoundedJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    const text = JSON.stringify(value);
    return text !== undefined && Buffer.byteLength(text) <= MAX_SCHEMA_BYTES ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Earlier drafts whose schemas read the same under 2020-12 for what an input states (types, properties, enums). */
const EARLIER_DRAFTS = /^https?:\/\/json-schema\.org\/draft-0[467]\/schema#?$/;

/**
 * The schema when it is a valid 2020-12 object schema within the limits, else null; a draft-04/06/07 `$schema` is
 * dropped so the schema reads as 2020-12, any other unknown `$schema` makes it invalid. Never throws.
 * @example toValidSchema({ type: 'object', properties: { q: { type: 'string' } } }) // the same object
 */
export function toValidSchema(value: unknown): JsonSchema | null {
  const bounded = toBoundedJson(value);
  if (!isRecord(bounded) || !hasOnlyLocalRefs(bounded, true)) return null;
  const { $schema, ...rest } = bounded;
  const schema = typeof $schema === 'string' && EARLIER_DRAFTS.test($schema) ? rest : bounded;
  try {
    return ajv.validateSchema(schema) === true ? schema : null;
  } catch {
    return null;
  }
}
