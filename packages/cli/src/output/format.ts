import { InvalidArgumentError, Option, type Command } from 'commander';

export type OutputFormat = 'table' | 'json' | 'csv';

export interface ListOutputFlags {
  outputFormat: OutputFormat;
  outputBasename?: string;
}

/** File extension used with --output-basename. */
export const EXTENSION: Record<OutputFormat, string> = { table: 'txt', json: 'json', csv: 'csv' };

function parseFormat(value: string): OutputFormat {
  // cloudos-cli calls the table `stdout`.
  const format = value === 'stdout' ? 'table' : value;
  if (format === 'table' || format === 'json' || format === 'csv') return format;
  throw new InvalidArgumentError('Allowed choices are table (or stdout), json, csv.');
}

/** --output-format and --output-basename, as cloudos-cli's list commands have them. */
export function addListOutputOptions(cmd: Command): Command {
  cmd.addOption(
    new Option('--output-format <format>', 'table|json|csv; the table is aligned on a terminal, tab-separated when piped')
      .argParser(parseFormat)
      .default('table'),
  );
  cmd.option('--output-basename <name>', 'write <name>.<txt|json|csv> instead of printing');
  return cmd;
}
