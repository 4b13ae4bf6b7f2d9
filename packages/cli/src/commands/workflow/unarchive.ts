import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { setArchivedCommand, setWorkflowArchived, type WorkflowArchiveOptions } from './set-archived.js';

export function workflowUnarchive(opts: WorkflowArchiveOptions, ctx: CliContext): Promise<void> {
  return setWorkflowArchived(opts, ctx, false);
}

export function workflowUnarchiveCommand(ctx: CliContext): Command {
  return setArchivedCommand(ctx, false);
}
