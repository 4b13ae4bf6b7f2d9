// fix_boolean_strings for a whole job body: string booleans become real ones (seed contract §2.4), but the
// fields that hold the user's own text keep it, so a job named "true" or a command `true` stays a string.
import { fixBooleanStrings } from '../jobs/boolean-strings.js';

/** Dotted paths of a job body whose values are text written by the user. */
export const JOB_BODY_TEXT_FIELDS: readonly string[] = [
  'name',
  'command',
  'profile',
  'nextflowVersion',
  'instanceType',
  'masterInstance.requestedInstance.type',
  'revision.branch',
  'revision.tag',
  'revision.commit',
  'revision.digest',
];

function holder(obj: Record<string, unknown>, path: string[]): Record<string, unknown> | undefined {
  let cur: unknown = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>) : undefined;
}

/** `fixBooleanStrings` of the body, with the strings of JOB_BODY_TEXT_FIELDS left as they were. The input is not changed. */
export function fixPayloadBooleans(body: Record<string, unknown>): Record<string, unknown> {
  const fixed = fixBooleanStrings(body);
  for (const field of JOB_BODY_TEXT_FIELDS) {
    const parts = field.split('.');
    const key = parts.pop()!;
    const before = holder(body, parts);
    const after = holder(fixed, parts);
    if (before && after && typeof before[key] === 'string') after[key] = before[key];
  }
  return fixed;
}
