import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { setArchivedCommand, setJobsArchived, type JobArchiveOptions } from './set-archived.js';

export function jobUnarchive(opts: JobArchiveOptions, ctx: CliContext): Promise<void> {
  return setJobsArchived(opts, ctx, false);
}

export function jobUnarchiveCommand(ctx: CliContext): Command {
  return setArchivedCommand(ctx, false);
}
