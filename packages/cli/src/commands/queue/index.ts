import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { queueCreateCommand } from './create.js';
import { queueListCommand } from './list.js';

export function queueNoun(ctx: CliContext): Command {
  return new Command('queue')
    .description('job queues of a workspace')
    .addCommand(queueListCommand(ctx))
    .addCommand(queueCreateCommand(ctx));
}
