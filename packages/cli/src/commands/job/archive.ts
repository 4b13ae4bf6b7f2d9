import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { setArchivedCommand, setJobsArchived, type JobArchiveOptions } from './set-archived.js';

export function jobArchive(opts: JobArchiveOptions, ctx: CliContext): Promise<void> {
  return setJobsArchived(opts, ctx, true);
}

export function jobArchiveCommand(ctx: CliContext): Command {
  return setArchivedCommand(ctx, true);
}
