import { Command } from 'commander';
import type { CliContext } from '../../../context.js';
import { hpcCreateCommand } from './create.js';
import { hpcListCommand } from './list.js';

export function hpcNoun(ctx: CliContext): Command {
  return new Command('hpc')
    .description('HPC (Slurm) clusters that jobs run on with --execution-platform hpc --hpc-id ID')
    .addCommand(hpcCreateCommand(ctx))
    .addCommand(hpcListCommand(ctx));
}
