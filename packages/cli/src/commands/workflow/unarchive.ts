import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { setArchivedCommand } from './set-archived.js';

export function workflowUnarchiveCommand(ctx: CliContext): Command {
  return setArchivedCommand(ctx, false);
}
