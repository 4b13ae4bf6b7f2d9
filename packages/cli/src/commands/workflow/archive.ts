import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { setArchivedCommand, setWorkflowArchived, type WorkflowArchiveOptions } from './set-archived.js';

export function workflowArchive(opts: WorkflowArchiveOptions, ctx: CliContext): Promise<void> {
  return setWorkflowArchived(opts, ctx, true);
}

export function workflowArchiveCommand(ctx: CliContext): Command {
  return setArchivedCommand(ctx, true);
}
