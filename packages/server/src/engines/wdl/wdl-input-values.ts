import { EngineError } from '../engine.js';
import type { TaskParameter } from '../parameters.js';
import type { WdlInput, WdlWorkflowInputs } from './wdl-declarations.js';

/** `"text"` or `'text'` without its quotes (the public client keeps the quotes of WDL values); other text as it is. */
function unquoted(text: string): string {
  const t = text.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // not a JSON string: drop the quotes only
    }
    return t.slice(1, -1);
  }
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1);
  return text;
}

function elementType(type: string): string | null {
  const m = /^Array\[(.*)\]\+?$/.exec(type);
  return m ? m[1]!.trim() : null;
}

/** A value of a WDL type from the text a job gave (or an element of a JSON array). */
function typedValue(type: string, value: unknown, name: string): unknown {
  const bad = (what: string) =>
    new EngineError(`The parameter ${name} must be ${what} (the workflow declares it ${type}); it is ${JSON.stringify(value)}.`);
  const base = type.replace(/\?$/, '');
  const element = elementType(base);
  if (element !== null) {
    let list: unknown = value;
    if (typeof value === 'string') {
      const t = value.trim();
      if (t.startsWith('[')) {
        try {
          list = JSON.parse(t);
        } catch {
          throw bad('a JSON array');
        }
      } else list = t === '' ? [] : t.split(',').map((s) => s.trim());
    }
    if (!Array.isArray(list)) throw bad('an array');
    if (base.endsWith('+') && list.length === 0) throw bad('a non-empty array');
    return list.map((v, i) => typedValue(element, v, `${name}[${i}]`));
  }
  if (typeof value !== 'string') {
    if (base === 'Int' && Number.isInteger(value)) return value;
    if (base === 'Float' && typeof value === 'number') return value;
    if (base === 'Boolean' && typeof value === 'boolean') return value;
    if ((base === 'String' || base === 'File' || base === 'Directory') && typeof value === 'number') return String(value);
    if (['Int', 'Float', 'Boolean', 'String', 'File', 'Directory'].includes(base)) throw bad(`a ${base}`);
    return value;
  }
  const text = unquoted(value).trim();
  switch (base) {
    case 'Int':
      if (!/^[+-]?\d+$/.test(text)) throw bad('a whole number');
      return Number(text);
    case 'Float':
      if (text === '' || !Number.isFinite(Number(text))) throw bad('a number');
      return Number(text);
    case 'Boolean':
      if (!/^(true|false)$/i.test(text)) throw bad('true or false');
      return text.toLowerCase() === 'true';
    case 'String':
    case 'File':
    case 'Directory':
      return unquoted(value);
    default:
      // Map, Pair, Object and structs: given as JSON.
      try {
        return JSON.parse(value) as unknown;
      } catch {
        throw bad('JSON');
      }
  }
}

/** A parameter's value: a glob over a folder as the list of its files (an Array[File]), anything else as the task sees it. */
function stagedValue(p: TaskParameter): unknown {
  return p.files && p.value !== p.files[0] ? p.files : p.value;
}

/** The declared input a parameter names: `hello.name`, or `name` alone (taken as the workflow's). */
function declaredInput(declared: WdlWorkflowInputs, name: string): WdlInput | undefined {
  const short = name.startsWith(`${declared.workflow}.`) ? name.slice(declared.workflow.length + 1) : name.includes('.') ? null : name;
  return short === null ? undefined : declared.inputs.find((i) => i.name === short);
}

/**
 * The inputs JSON of a WDL run, as Cromwell, toil and miniwdl take it: each parameter under its
 * qualified name (`hello.name`), typed from the workflow's declarations; a staged File Explorer
 * file as its path. A parameter that names a call's input (`hello.greet.x`) is passed as given.
 * A parameter naming no input of the workflow, or whose value is not of its type, fails the job;
 * so does a required input without a value and without a default.
 */
export function wdlInputsJson(
  declared: WdlWorkflowInputs,
  parameters: TaskParameter[],
  paramsFile: Record<string, unknown> | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const given: [string, unknown][] = [
    ...Object.entries(paramsFile ?? {}),
    ...parameters.map((p): [string, unknown] => [p.name, stagedValue(p)]),
  ];
  for (const [name, value] of given) {
    const input = declaredInput(declared, name);
    const qualified = input ? `${declared.workflow}.${input.name}` : name;
    if (input) out[qualified] = typedValue(input.type, value, qualified);
    else if (name.startsWith(`${declared.workflow}.`) && name.split('.').length > 2)
      out[name] = typeof value === 'string' ? unquoted(value) : value;
    else {
      const known = declared.inputs.map((i) => `${declared.workflow}.${i.name}`).join(', ') || 'none';
      throw new EngineError(`The parameter ${name} is not an input of the workflow ${declared.workflow} (its inputs: ${known}).`);
    }
  }
  const missing = declared.inputs.filter((i) => !i.optional && !i.hasDefault && !(`${declared.workflow}.${i.name}` in out));
  if (missing.length)
    throw new EngineError(
      `The workflow ${declared.workflow} needs a value for ${missing.map((i) => `${declared.workflow}.${i.name} (${i.type})`).join(', ')}.`,
    );
  return out;
}
