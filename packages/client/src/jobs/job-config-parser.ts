// The job-config file (seed contract §2.8): a `params { … }` block with one `name = value` pair per line,
// equivalent to repeating `--parameter name=value`.
import { RunyardValueError } from '../errors.js';
import type { WorkflowType } from './job-types.js';

export interface JobConfigOptions {
  /** Shown in messages. */
  fileName: string;
  workflowType: WorkflowType;
}

export interface JobConfig {
  /** The pairs in file order; every value is text. */
  params: Array<{ name: string; value: string }>;
  /** Notes for the user, e.g. a list value that is sent as text. */
  warnings: string[];
}

const PARAMS_BLOCK_START = /^params\s*\{(.*)$/;
const PARAMETER_NAME = /^[A-Za-z_][\w.-]*$/;

/**
 * The line with a trailing `//` or `#` comment removed. A comment starts only at the beginning of the
 * line or after whitespace, and never inside quotes, so `s3://bucket/key` and `a#b` survive.
 */
export function stripTrailingComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if ((c === '#' || line.startsWith('//', i)) && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i);
  }
  return line;
}

/** How a value's quotes and brackets end: balanced, left open (the value goes on), or closed too often. */
interface Delimiters {
  unclosedQuote: boolean;
  /** Brackets left open, innermost last. */
  open: string[];
  strayCloser: boolean;
}

function scanDelimiters(value: string): Delimiters {
  const pairs: Record<string, string> = { ']': '[', ')': '(', '}': '{' };
  const open: string[] = [];
  let quote: string | undefined;
  let strayCloser = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(' || c === '{') open.push(c);
    else if (c in pairs) {
      if (open[open.length - 1] === pairs[c]) open.pop();
      else strayCloser = true;
    }
  }
  return { unclosedQuote: quote !== undefined, open, strayCloser };
}

/** A value written as one quoted literal, without its quotes; otherwise the value unchanged. */
function unquote(value: string): string {
  const m = /^"((?:[^"\\]|\\.)*)"$/.exec(value) ?? /^'((?:[^'\\]|\\.)*)'$/.exec(value);
  return m ? m[1] : value;
}

/** Reads the `params` blocks of a job-config file; every broken rule is a RunyardValueError naming the line. */
export function parseJobConfig(text: string, options: JobConfigOptions): JobConfig {
  const { fileName, workflowType } = options;
  const lines = text.split(/\r?\n/);
  const params: JobConfig['params'] = [];
  const warnings: string[] = [];
  const fail = (lineNumber: number, what: string): never => {
    throw new RunyardValueError(`Line ${lineNumber} of ${fileName}: ${what}: '${lines[lineNumber - 1].trim()}'`);
  };
  let foundBlock = false;
  let blockStart = 0; // line number of the open block's `params {`, 0 outside a block
  let inBlockComment = false;

  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i].trim();
    if (inBlockComment || raw.startsWith('/*')) {
      inBlockComment = !raw.includes('*/');
      continue;
    }
    const line = stripTrailingComment(raw).trim();
    if (!line) continue;

    if (!blockStart) {
      const start = PARAMS_BLOCK_START.exec(line);
      if (!start) continue; // outside the params block, other settings are not ours to read
      const rest = start[1].trim();
      if (rest.includes('}')) fail(n, 'the params block is opened and closed on the same line; write one name = value pair per line');
      if (rest) fail(n, "not a name = value pair; start the pairs on the line after 'params {'");
      foundBlock = true;
      blockStart = n;
      continue;
    }

    if (line === '}') {
      blockStart = 0;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) {
      if (line.endsWith('{')) fail(n, 'nested blocks are not supported inside the params block');
      throw new RunyardValueError(
        `Please, specify your parameters in ${fileName} using the '=' as spacer. E.g: name = my_name. Line ${n}: '${raw}'`,
      );
    }
    const name = line.slice(0, eq).trim();
    if (!PARAMETER_NAME.test(name)) fail(n, 'not a name = value pair');
    const received = line.slice(eq + 1).trim();
    if (!received) fail(n, `the parameter '${name}' has no value`);
    const delimiters = scanDelimiters(received);
    if (delimiters.open.includes('{')) fail(n, `the value of '${name}' opens a nested block, which is not supported`);
    if (delimiters.unclosedQuote || delimiters.open.length) {
      fail(n, `the value of '${name}' spans several lines, which is not supported; write it on one line`);
    }
    if (delimiters.strayCloser)
      fail(n, `the value of '${name}' closes a bracket it never opened (the closing '}' of params goes on its own line)`);

    if (workflowType !== 'wdl' && received.startsWith('[') && received.endsWith(']')) {
      warnings.push(`Line ${n} of ${fileName}: the value of '${name}' looks like a list; it is sent as the text ${received}`);
    }
    params.push({ name, value: workflowType === 'wdl' ? received : unquote(received) });
  }

  if (blockStart) fail(blockStart, "the params block is not closed with '}'");
  if (!foundBlock) {
    throw new RunyardValueError(
      `No params block found in ${fileName}: it must contain 'params {', one name = value pair per line, and '}'.`,
    );
  }
  return { params, warnings };
}
