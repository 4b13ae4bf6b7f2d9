import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { quoted } from '../errors/quoted.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => ISO_TIME.test(v) && !Number.isNaN(Date.parse(v)));

/** `/a/b` -> `body.a.b`. */
function fieldOf(path: string): string {
  return ['body', ...path.split('/').filter(Boolean)].join('.');
}

function describe(e: ValueError): string {
  const field = fieldOf(e.path);
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `${field} is required`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `${fieldOf(e.path.replace(/\/[^/]*$/, ''))}: unknown key ${quoted(e.path.split('/').pop())}`;
    case ValueErrorType.StringMinLength:
      if (e.schema.minLength === 1) return `${field} must not be empty`;
      break;
    case ValueErrorType.StringPattern:
      // The contract's Name: at least one character that is not white space.
      if (e.schema.pattern === '\\S') return `${field} must not be empty or only white space`;
      return `${field} does not have the expected form (${e.schema.pattern})`;
    case ValueErrorType.Union: {
      const values = (e.schema.anyOf as TSchema[] | undefined)?.map((s) => s.const);
      if (values?.every((v) => v !== undefined)) return `${field} must be one of ${values.join(', ')}`;
      break;
    }
  }
  return `${field}: ${e.message}`;
}

/**
 * Request bodies are checked against the contract schema as sent: unlike the query string, whose
 * values are all text and are converted, a body value of the wrong JSON type is refused
 * (`{"name": 5}` is not the name "5"). Schema defaults are filled in first.
 * Returns the body, and a message naming every bad field or null.
 */
export function compileBodyValidator(schema: TSchema): (input: unknown) => [body: unknown, problems: string | null] {
  const check = TypeCompiler.Compile(schema);
  return (input) => {
    const body = input && typeof input === 'object' ? Value.Default(schema, input) : input;
    if (check.Check(body)) return [body, null];
    const seen = new Set<string>();
    const messages: string[] = [];
    for (const e of check.Errors(body ?? null)) {
      // One message per field: the first error is the telling one (required before type).
      const key = e.type === ValueErrorType.ObjectAdditionalProperties ? `+${e.path}` : e.path;
      if (seen.has(key)) continue;
      seen.add(key);
      messages.push(describe(e));
    }
    return [body, messages.join('; ') || 'body is not valid'];
  };
}
