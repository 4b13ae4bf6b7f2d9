import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { projectCreateCommand } from './create.js';
import { projectListCommand } from './list.js';

export function projectNoun(ctx: CliContext): Command {
  return new Command('project')
    .description('projects of a workspace')
    .addCommand(projectListCommand(ctx))
    .addCommand(projectCreateCommand(ctx));
}
