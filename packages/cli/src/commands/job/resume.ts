import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { cloneOrResume, cloneOrResumeCommand, type JobCloneOptions } from './clone-or-resume.js';

export function jobResume(opts: JobCloneOptions, ctx: CliContext): Promise<void> {
  return cloneOrResume(opts, ctx, 'resume');
}

export function jobResumeCommand(ctx: CliContext): Command {
  return cloneOrResumeCommand(ctx, 'resume');
}
