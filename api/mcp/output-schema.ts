/*
 * A tool's output schema as its answer's top level only: each field with its JSON types, nested shapes left open.
 * The full schemas of every answer repeated in tools/list would take it past the 24 KiB it is held to (DESIGN.md), more
 * than a model's context should spend on a list of tools; structuredContent is still exactly the REST body, whose
 * full schema /openapi.json gives.
 */

type JsonSchema = Record<string, unknown>;

/**
 * @example toTopLevelSchema(z.toJSONSchema(ServiceList)) // { type: 'object', properties: { services: { type: 'array' }, ... }, required: [...] }
 */
export function toTopLevelSchema(schema: JsonSchema): JsonSchema {
  const definitions = (schema.definitions ?? {}) as Record<string, JsonSchema>;
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)
    .map(([name, property]) => [name, toTypeOnly(typesOf(property, definitions))] as const);
  return { type: 'object', properties: Object.fromEntries(properties), ...(schema.required ? { required: schema.required } : {}) };
}

function toTypeOnly(types: string[] | null): JsonSchema {
  if (!types) return {};
  const distinct = [...new Set(types)];
  return { type: distinct.length === 1 ? distinct[0] : distinct };
}

/** The JSON types a schema allows, or null when it allows any (no type stated on some branch). */
function typesOf(schema: JsonSchema, definitions: Record<string, JsonSchema>): string[] | null {
  const ref = typeof schema.$ref === 'string' ? definitions[schema.$ref.replace('#/definitions/', '')] : undefined;
  if (ref) return typesOf(ref, definitions);
  if (schema.type !== undefined) return [schema.type].flat() as string[];
  const branches = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as JsonSchema[] | undefined;
  if (!branches) return null;
  const types = branches.map((branch) => typesOf(branch, definitions));
  if (schema.allOf) return types.find((type) => type !== null) ?? null;
  return types.some((type) => type === null) ? null : types.flat() as string[];
}
