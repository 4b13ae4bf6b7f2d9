import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { storageLsCommand } from './ls.js';

export function storageNoun(ctx: CliContext): Command {
  return new Command('storage').description('the buckets (or Azure containers) of a workspace').addCommand(storageLsCommand(ctx));
}
