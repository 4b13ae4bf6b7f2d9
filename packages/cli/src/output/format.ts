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

/** --output-format alone, for commands that print one thing (a status, a few URLs). */
export function addOutputFormatOption(cmd: Command, description = 'table|json|csv'): Command {
  const option = new Option('--output-format <format>', description).argParser(parseFormat).default('table');
  // Listed for help and shell completion; the parser also takes cloudos-cli's `stdout`.
  option.argChoices = ['table', 'json', 'csv'];
  return cmd.addOption(option);
}

/** --output-format and --output-basename, as cloudos-cli's list commands have them. */
export function addListOutputOptions(cmd: Command): Command {
  addOutputFormatOption(cmd, 'table|json|csv; the table is aligned on a terminal, tab-separated when piped');
  cmd.option('--output-basename <name>', 'write <name>.<txt|json|csv> instead of printing');
  return cmd;
}
