import { Command } from 'commander';
import type { CliContext } from '../../../context.js';
import { engineTokenRotateCommand } from './rotate.js';
import { engineTokenShowCommand } from './show.js';

export function engineTokenNoun(ctx: CliContext): Command {
  return new Command('engine-token')
    .description("the workspace's engine token, which the cromwell routes take instead of an API key")
    .addCommand(engineTokenShowCommand(ctx))
    .addCommand(engineTokenRotateCommand(ctx));
}
