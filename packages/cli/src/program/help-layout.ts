import { Help, type Command, type Option } from 'commander';
import type { CliContext } from '../context.js';
import { EXAMPLES } from './examples.js';
import { examplesSection } from './examples-section.js';
import { isRequired } from './required-options.js';

/**
 * The width help is fitted to: the terminal's, else COLUMNS (set by shells, honoured by most
 * tools when output is piped), else 80.
 */
export function helpWidth(stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): number {
  if (stream.isTTY && stream.columns) return stream.columns;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : 80;
}

function wrapUsage(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current && current.length + 1 + word.length > width) {
      out.push(current);
      current = `       ${word}`;
    } else current = current ? `${current} ${word}` : word;
  }
  return [...out, current];
}

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Help on every command: fitted to the terminal, subcommands listed by name (their arguments are in
 * their own help, and long terms would leave no room to wrap), required options marked, and an
 * Examples section. Call on the root before its settings are copied to the other commands.
 */
export function configureHelpLayout(program: Command, ctx: CliContext): void {
  program.configureOutput({
    getOutHelpWidth: () => helpWidth(ctx.stdout, ctx.env),
    getErrHelpWidth: () => helpWidth(ctx.stderr, ctx.env),
  });
  program.configureHelp({
    // commander does not wrap a description narrower than 40 columns; narrow terminals need it too.
    minWidthToWrap: 20,
    subcommandTerm: (cmd: Command) => cmd.name(),
    // commander leaves the usage line as long as it is; a long one is wrapped under itself.
    formatHelp(this: Help, cmd: Command, helper: Help) {
      const [usage, ...rest] = Help.prototype.formatHelp.call(this, cmd, helper).split('\n');
      return [...wrapUsage(usage, this.helpWidth ?? 80), ...rest].join('\n');
    },
    optionDescription(this: Help, option: Option) {
      const text = Help.prototype.optionDescription.call(this, option);
      return isRequired(option) ? `${text} (required)` : text;
    },
  });
}

/** Adds its Examples section to every command of the tree (none for a command without examples). */
export function addExamples(commands: Iterable<Command>, ctx: CliContext): void {
  for (const cmd of commands) {
    const examples = EXAMPLES[pathOf(cmd)];
    if (!examples) continue;
    cmd.addHelpText('after', ({ error }) => examplesSection(examples, helpWidth(error ? ctx.stderr : ctx.stdout, ctx.env)));
  }
}
