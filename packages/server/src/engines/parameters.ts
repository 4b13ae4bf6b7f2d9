import { EngineError } from './engine.js';
import type { StoredParameter } from '../staging/input-refs.js';
import type { JobInputs } from '../staging/inputs.js';

/** A job parameter as the task sees it. */
export interface TaskParameter {
  name: string;
  prefix: string;
  /** The value as the job sent it (booleans and numbers stay typed, for params files). */
  value: string | number | boolean;
  /** The value as argv and environment see it. */
  text: string;
  /** For a staged input (a File Explorer file or a glob over a folder): the files it stands for. */
  files?: string[];
}

/**
 * The parameters a task gets, from the job's stored wire parameters: text values, and the
 * staged inputs (staging/inputs.ts) of data items and glob patterns; a glob pattern without a
 * folder is passed as its text. Other kinds (array columns) are answered in `skipped`, for the job's log.
 */
export function taskParameters(parametersJson: string, inputs?: JobInputs): { parameters: TaskParameter[]; skipped: string[] } {
  const stored = JSON.parse(parametersJson || '[]') as StoredParameter[];
  const parameters: TaskParameter[] = [];
  const skipped: string[] = [];
  for (const [index, p] of (Array.isArray(stored) ? stored : []).entries()) {
    const name = String(p.name ?? '');
    const staged = inputs?.parameters.get(index);
    const value = staged ? staged.value : p.parameterKind === 'globPattern' ? p.globPattern : p.textValue;
    if (!name || !(typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) {
      skipped.push(`${name || '(unnamed)'} (${String(p.parameterKind)})`);
      continue;
    }
    const text = String(value);
    if (name.includes('\0') || text.includes('\0'))
      throw new EngineError(`The parameter "${name.replace(/\0/g, '')}" contains a NUL character.`);
    parameters.push({ name, prefix: typeof p.prefix === 'string' ? p.prefix : '', value, text, ...(staged && { files: staged.files }) });
  }
  return { parameters, skipped };
}

/** RUNYARD_PARAM_<NAME>: the name uppercased, every character other than A-Z and 0-9 turned into "_". */
export function parameterEnvName(name: string): string {
  return `RUNYARD_PARAM_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** RUNYARD_FILES_<NAME>: the files a staged input stands for, one per line. */
export function parameterFilesEnvName(name: string): string {
  return `RUNYARD_FILES_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}
