// Job payloads read back from the server may carry booleans as strings ("True", "false") and array-file
// column indexes as strings (wire reference §8 item 8). Before such a payload is sent again, they are
// turned back into real values (seed contract §2.4).
import { RunyardValueError } from '../errors.js';

const BOOLEAN_STRINGS: ReadonlyMap<string, boolean> = new Map([
  ['True', true],
  ['true', true],
  ['False', false],
  ['false', false],
]);

/** Fields whose content is user text and stays as written. */
const TEXT_FIELDS = new Set(['textValue', 'textValues']);

function fixObject(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (TEXT_FIELDS.has(key)) out[key] = structuredClone(value);
    else if (key === 'columnIndex' && typeof value === 'string') out[key] = columnIndexFrom(value, obj.name);
    else out[key] = fix(value);
  }
  return out;
}

function columnIndexFrom(value: string, parameterName: unknown): number {
  if (!/^\d+$/.test(value.trim())) {
    throw new RunyardValueError(`Invalid columnIndex value '${value}' for parameter '${String(parameterName)}'`);
  }
  return Number.parseInt(value, 10);
}

function fix(value: unknown): unknown {
  if (typeof value === 'string') return BOOLEAN_STRINGS.get(value) ?? value;
  if (Array.isArray(value)) return value.map(fix);
  if (value !== null && typeof value === 'object') return fixObject(value as Record<string, unknown>);
  return value;
}

/**
 * A copy of the payload in which the strings "True"/"False"/"true"/"false" are booleans, at any depth,
 * except inside `textValue` and `textValues`, and in which a string `columnIndex` is an integer.
 * The input is not changed.
 */
export function fixBooleanStrings<T>(payload: T): T {
  return fix(payload) as T;
}
