import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CliContext } from '../context.js';
import { loadSdk } from '../sdk.js';
import { EXTENSION, type ListOutputFlags } from './format.js';
import type { ListView } from './list-view.js';
import { renderAligned, renderTabSeparated, type TextTable } from './text-table.js';
import { colourOn } from './colour.js';

export interface EmitListOptions extends ListOutputFlags {
  allFields?: boolean;
}

async function textTable<T>(items: T[], view: ListView<T>, allFields: boolean): Promise<TextTable> {
  const { cellText } = await loadSdk();
  if (!allFields)
    return { headers: view.columns.map((c) => c.header), rows: items.map((i) => view.columns.map((c) => cellText(c.value(i)))) };
  const t = await view.records(items, true);
  return { headers: t.columns, rows: t.rows.map((r) => t.columns.map((c) => cellText(r[c]))) };
}

/**
 * Writes a list in the chosen format: to stdout, or to `<basename>.<ext>` with a note on stderr.
 * The table is aligned for a person on a terminal (and in a file), tab-separated for a pipe.
 */
export async function emitList<T>(items: T[], view: ListView<T>, opts: EmitListOptions, ctx: CliContext): Promise<void> {
  const allFields = Boolean(opts.allFields);
  const toFile = opts.outputBasename !== undefined;
  if (items.length === 0) ctx.stderr.write(`No ${view.noun} found\n`);
  let text: string;
  if (opts.outputFormat === 'json') {
    text = JSON.stringify(items, null, 2) + '\n';
  } else if (opts.outputFormat === 'csv') {
    const { tableToCsv } = await loadSdk();
    text = tableToCsv(await view.records(items, allFields));
  } else {
    if (items.length === 0 && !toFile) return;
    const table = await textTable(items, view, allFields);
    const forPerson = toFile || Boolean(ctx.stdout.isTTY);
    text = forPerson ? renderAligned(table, { colour: !toFile && colourOn(ctx) }) : renderTabSeparated(table);
  }
  if (!toFile) {
    ctx.stdout.write(text);
    return;
  }
  const file = path.resolve(`${opts.outputBasename}.${EXTENSION[opts.outputFormat]}`);
  writeFileSync(file, text);
  ctx.stderr.write(`Wrote ${items.length} ${view.noun} to ${file}\n`);
}
