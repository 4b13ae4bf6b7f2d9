import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { bashArrayJobCommand } from './array-job.js';
import { bashJobCommand } from './job.js';

export function bashNoun(ctx: CliContext): Command {
  return new Command('bash')
    .description('shell commands run as jobs in container workflows')
    .addCommand(bashJobCommand(ctx))
    .addCommand(bashArrayJobCommand(ctx));
}
