import { Ajv, type ErrorObject } from 'ajv';
import { apiError } from '../errors.ts';
import { fieldErrorCode, type Operation, type Part } from '../operation.ts';

/*
 * A tool's arguments checked against the input schema its clients read, before the operation's own schemas: a value
 * of the wrong type or out of range (`limit: "ten"`, `limit: 1000`) answers an Error naming the argument, where the
 * REST query, which reads text, would read it leniently (a page size clamped, a number that is not one ignored).
 */

/** Throws the Error shape (400) naming the first argument that does not match the schema. */
export type ArgumentsCheck = (args: Record<string, unknown>) => void;

/** Formats (`uri`) and annotations (`example`) are the operation's to check and document, not the argument check's. */
const AJV = new Ajv({ strict: false, validateFormats: false });

/**
 * @example const check = compileArguments(inputSchema, operation, () => 'query', (argument) => argument); check({ limit: 'ten' });
 */
export function compileArguments(
  schema: Record<string, unknown>,
  operation: Operation,
  partOf: (argument: string) => Part,
  fieldOf: (argument: string) => string,
): ArgumentsCheck {
  const validate = AJV.compile(schema);
  return (args) => {
    if (validate(args)) return;
    const error = validate.errors![0]!;
    const argument = argumentOf(error);
    const code = fieldErrorCode(operation, partOf(argument), fieldOf(argument));
    throw apiError(400, code, toMessage(argument, error, args));
  };
}

function argumentOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String(error.params.missingProperty);
  return decodePointer(error.instancePath.split('/')[1] ?? '');
}

/** The argument, where in it, what it must be and what was given: "The argument `limit` must be integer; got "ten"." */
function toMessage(argument: string, error: ErrorObject, args: Record<string, unknown>): string {
  const named = `The argument \`${argument}\``;
  if (error.keyword === 'required') return `${named} is required.`;
  const path = error.instancePath.split('/').slice(1).map(decodePointer);
  const at = path.length > 1 ? ` (at ${path.join('.')})` : '';
  const allowed = error.keyword === 'enum' ? `be one of ${(error.params.allowedValues as unknown[]).join(', ')}` : null;
  const must = allowed ? `must ${allowed}` : error.message ?? 'is not valid';
  const given = path.reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], args);
  return `${named}${at} ${must}; got ${JSON.stringify(given)?.slice(0, 100)}.`;
}

const decodePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
