import type { CliContext } from '../context.js';
import { loadSdk } from '../sdk.js';
import type { OutputFormat } from './format.js';

type Cell = string | number | boolean | null | undefined;

/**
 * Prints what a command found in the chosen format: `text` (the command's own lines for a person
 * or a script) for the table, the object for json, or csv with one row per record.
 */
export async function emitRecords(
  format: OutputFormat,
  ctx: CliContext,
  data: { text: string; json: unknown; records: Array<Record<string, Cell>>; columns: string[] },
): Promise<void> {
  if (format === 'json') ctx.stdout.write(JSON.stringify(data.json, null, 2) + '\n');
  else if (format === 'csv') ctx.stdout.write((await loadSdk()).tableToCsv({ columns: data.columns, rows: data.records }));
  else ctx.stdout.write(data.text);
}
