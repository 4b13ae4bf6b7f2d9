import { EngineError } from '../engine.js';

/** A workflow input as its WDL file declares it: `Int times = 2` gives {name: 'times', type: 'Int', optional: false, hasDefault: true}. */
export interface WdlInput {
  name: string;
  /** The type as written, without its `?` (e.g. `Array[File]+`). */
  type: string;
  optional: boolean;
  hasDefault: boolean;
}

export interface WdlWorkflowInputs {
  workflow: string;
  inputs: WdlInput[];
}

/** The text with its comments (`#` to the end of a line, outside quotes) and the bodies of command sections removed. */
function stripCommentsAndCommands(text: string): string {
  const withoutCommands = text.replace(/command\s*<<<[\s\S]*?>>>/g, 'command {}');
  return withoutCommands
    .split('\n')
    .map((line) => {
      let quote: string | null = null;
      for (let i = 0; i < line.length; i++) {
        const c = line[i]!;
        if (quote) {
          if (c === '\\') i++;
          else if (c === quote) quote = null;
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '#') return line.slice(0, i);
      }
      return line;
    })
    .join('\n');
}

/** The index of the brace that closes the one at `open`; command sections in braces (`command { }`) nest as braces do. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  throw new EngineError('The WDL file has a "{" that is never closed.');
}

/** The top-level statements of a block body (its text at brace depth 0), one per line. */
function topLevelLines(body: string): string[] {
  const lines: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of body) {
    if (c === '{') depth++;
    if (depth === 0) current += c;
    if (c === '}') depth--;
    if (c === '\n' && depth === 0) {
      lines.push(current.trim());
      current = '';
    }
  }
  lines.push(current.trim());
  return lines.filter(Boolean);
}

const DECLARATION = /^([A-Za-z][A-Za-z0-9_]*(?:\[[^=]*\])?\+?)(\?)?\s+([A-Za-z][A-Za-z0-9_]*)\s*(=.*)?$/;
const NOT_DECLARATIONS = new Set(['call', 'scatter', 'if', 'output', 'input', 'meta', 'parameter_meta', 'import', 'version']);

function declarationsOf(lines: string[]): WdlInput[] {
  const inputs: WdlInput[] = [];
  for (const line of lines) {
    const m = DECLARATION.exec(line);
    if (!m || NOT_DECLARATIONS.has(m[1]!)) continue;
    inputs.push({ name: m[3]!, type: m[1]!.replace(/\s+/g, ''), optional: m[2] === '?', hasDefault: m[4] !== undefined });
  }
  return inputs;
}

/**
 * The workflow's name and its inputs, read from its main WDL file: the `input {}` section of the
 * workflow (WDL 1.0 and later), or its declarations before the first call (draft-2, where every
 * declaration without a value is an input; one with a value is kept as an input with a default).
 */
export function workflowInputs(wdl: string): WdlWorkflowInputs {
  const text = stripCommentsAndCommands(wdl);
  const start = /(^|\n)\s*workflow\s+([A-Za-z][A-Za-z0-9_]*)\s*\{/.exec(text);
  if (!start) throw new EngineError('The main WDL file has no workflow.');
  const open = start.index + start[0].length - 1;
  const body = text.slice(open + 1, closingBrace(text, open));
  const section = /(^|\n)\s*input\s*\{/.exec(body);
  if (section) {
    const inputOpen = section.index + section[0].length - 1;
    const inputBody = body.slice(inputOpen + 1, closingBrace(body, inputOpen));
    return { workflow: start[2]!, inputs: declarationsOf(inputBody.split('\n').map((l) => l.trim())) };
  }
  const lines = topLevelLines(body);
  const firstCall = lines.findIndex((l) => /^(call|scatter|if)\b/.test(l));
  return { workflow: start[2]!, inputs: declarationsOf(firstCall < 0 ? lines : lines.slice(0, firstCall)) };
}
