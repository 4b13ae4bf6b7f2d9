import type { Example } from './examples.js';

/** Splits a command line at spaces outside quotes. */
function words(line: string): string[] {
  return line.match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? [];
}

/** Words that stay on one line: an option with its value (`--job-id J`); any other word alone. */
function chunks(line: string): string[] {
  const out: string[] = [];
  for (const word of words(line)) {
    const last = out[out.length - 1];
    if (last?.startsWith('-') && !last.includes(' ') && !word.startsWith('-')) out[out.length - 1] = `${last} ${word}`;
    else out.push(word);
  }
  return out;
}

/** A command line as shell lines no wider than width, broken between chunks and continued with ` \`. */
function wrapCommand(line: string, width: number): string[] {
  const out: string[] = [];
  let current = '';
  // A chunk too long for a continuation line of its own is broken into its words after all.
  const pieces = chunks(line).flatMap((c) => (c.length + 8 > width ? c.split(' ') : [c]));
  for (const chunk of pieces) {
    if (!current) current = `  $ ${chunk}`;
    else if (current.length + 1 + chunk.length + 2 > width) {
      out.push(`${current} \\`);
      current = `      ${chunk}`;
    } else current += ` ${chunk}`;
  }
  return [...out, current];
}

/** A comment as lines of `  # ...` no wider than width. */
function wrapComment(text: string, width: number): string[] {
  const out: string[] = [];
  let current = '  #';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current.length + 1 + word.length > width && current !== '  #') {
      out.push(current);
      current = '  #';
    }
    current += ` ${word}`;
  }
  return current === '  #' ? out : [...out, current];
}

/** The `Examples:` section of a help page, fitted to the help's width. */
export function examplesSection(examples: Example[], width: number): string {
  const lines = examples.flatMap((e) => [...wrapComment(e.what, width), ...wrapCommand(e.run, width)]);
  return `\nExamples:\n${lines.join('\n')}`;
}
