import { EngineError } from './engine.js';

/** A job parameter as the task sees it. */
export interface TaskParameter {
  name: string;
  prefix: string;
  /** The value as the job sent it (booleans and numbers stay typed, for params files). */
  value: string | number | boolean;
  /** The value as argv and environment see it. */
  text: string;
}

interface StoredParameter {
  name?: unknown;
  prefix?: unknown;
  parameterKind?: unknown;
  textValue?: unknown;
  globPattern?: unknown;
}

/**
 * The parameters a task gets, from the job's stored wire parameters: text values and glob
 * patterns. Other kinds (data items, folders, array columns) are answered in `skipped`, for the
 * job's log, until the storage issue resolves them to paths.
 */
export function taskParameters(parametersJson: string): { parameters: TaskParameter[]; skipped: string[] } {
  const stored = JSON.parse(parametersJson || '[]') as StoredParameter[];
  const parameters: TaskParameter[] = [];
  const skipped: string[] = [];
  for (const p of Array.isArray(stored) ? stored : []) {
    const name = String(p.name ?? '');
    const value = p.parameterKind === 'globPattern' ? p.globPattern : p.textValue;
    if (!name || !(typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) {
      skipped.push(`${name || '(unnamed)'} (${String(p.parameterKind)})`);
      continue;
    }
    const text = String(value);
    if (name.includes('\0') || text.includes('\0'))
      throw new EngineError(`The parameter "${name.replace(/\0/g, '')}" contains a NUL character.`);
    parameters.push({ name, prefix: typeof p.prefix === 'string' ? p.prefix : '', value, text });
  }
  return { parameters, skipped };
}

/** RUNYARD_PARAM_<NAME>: the name uppercased, every character other than A-Z and 0-9 turned into "_". */
export function parameterEnvName(name: string): string {
  return `RUNYARD_PARAM_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}
