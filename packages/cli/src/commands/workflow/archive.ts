import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { setArchivedCommand } from './set-archived.js';

export function workflowArchiveCommand(ctx: CliContext): Command {
  return setArchivedCommand(ctx, true);
}
