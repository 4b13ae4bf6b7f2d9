import type { Readable } from 'node:stream';

/**
 * Array files (the table of a bash array job: a header row naming the columns, then one row per
 * task). The separator is named as job bodies and the array-file metadata route name it (wire
 * reference §2.1, §2.2): `,` `;` `|`, a space (` ` or `space`) or `tab`.
 *
 * Fields are split on the separator; a field in double quotes may hold the separator, and `""`
 * inside it is one quote (as spreadsheets write CSV). Lines end in `\n` or `\r\n`; a leading
 * byte-order mark and blank lines are ignored.
 */

const SEPARATORS: Readonly<Record<string, string>> = { ',': ',', ';': ';', '|': '|', ' ': ' ', space: ' ', tab: '\t' };

/** The names a separator may be given by. */
export const ARRAY_FILE_SEPARATOR_NAMES = Object.keys(SEPARATORS);

/** The character a separator name stands for; undefined for a name that is not one. */
export function separatorChar(name: string): string | undefined {
  return Object.hasOwn(SEPARATORS, name) ? SEPARATORS[name] : undefined;
}

/** The fields of one line. */
export function splitFields(line: string, sep: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  let atStart = true;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && atStart) {
      quoted = true;
      atStart = false;
    } else if (c === sep) {
      fields.push(field);
      field = '';
      atStart = true;
    } else {
      field += c;
      atStart = false;
    }
  }
  fields.push(field);
  return fields;
}

/** The non-blank lines of a text, without line ends or a leading byte-order mark. */
export function arrayFileLines(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
    .filter((l) => l.trim() !== '');
}

export interface ArrayFileTable {
  header: string[];
  rows: string[][];
}

/** Header and rows of an array file's text. */
export function parseArrayFile(text: string, sep: string): ArrayFileTable {
  const [head, ...rest] = arrayFileLines(text);
  return { header: head === undefined ? [] : splitFields(head, sep).map((h) => h.trim()), rows: rest.map((l) => splitFields(l, sep)) };
}

/** A header row longer than this is not a header (a binary file, a file with no line ends). */
export const MAX_HEADER_BYTES = 64 * 1024;

/**
 * The first non-blank line of a stream, read only as far as needed (the rest is not read); null
 * when the stream has no line. Throws when the line is longer than maxBytes.
 */
export async function readHeaderLine(stream: Readable, maxBytes = MAX_HEADER_BYTES): Promise<string | null> {
  let pending = Buffer.alloc(0);
  try {
    for await (const chunk of stream) {
      pending = Buffer.concat([pending, chunk as Buffer]);
      for (;;) {
        const end = pending.indexOf(0x0a);
        if (end < 0) break;
        const [line] = arrayFileLines(pending.subarray(0, end).toString('utf8'));
        if (line !== undefined) return line;
        pending = pending.subarray(end + 1);
      }
      if (pending.length > maxBytes) throw new RangeError(`its first line is longer than ${maxBytes / 1024} KiB`);
    }
  } finally {
    stream.destroy();
  }
  const [last] = arrayFileLines(pending.toString('utf8'));
  return last ?? null;
}

/** Most bytes of an array file (staging/array-file-limit.ts, where staging reads it), and most tasks (data rows) of one array job. */
export { MAX_ARRAY_FILE_BYTES } from '../staging/array-file-limit.js';
export const MAX_ARRAY_TASKS = 10_000;

/** The parameter fields an array column needs. */
interface ColumnParameter {
  name?: unknown;
  parameterKind?: unknown;
  columnName?: unknown;
}

/**
 * For each arrayFileColumn parameter (by its position in the list), the index of its column in
 * the header, found by name; or what is wrong: a column the header lacks, or a row too short to
 * have it.
 */
export function arrayColumnIndexes(parameters: readonly ColumnParameter[], table: ArrayFileTable): Map<number, number> | string {
  const out = new Map<number, number>();
  for (const [at, p] of parameters.entries()) {
    if (p.parameterKind !== 'arrayFileColumn') continue;
    const column = String(p.columnName ?? '');
    const index = table.header.indexOf(column);
    if (index < 0)
      return `parameter "${String(p.name)}" takes the column "${column}", which its header lacks (columns: ${table.header.join(', ')}).`;
    const short = table.rows.findIndex((r) => r.length <= index);
    if (short >= 0)
      return `row ${short + 2} has ${table.rows[short].length} fields, so no value of the column "${column}" (field ${index + 1}).`;
    out.set(at, index);
  }
  return out;
}
