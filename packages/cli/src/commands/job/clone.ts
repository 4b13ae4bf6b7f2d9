import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { cloneOrResume, cloneOrResumeCommand, type JobCloneOptions } from './clone-or-resume.js';

export function jobClone(opts: JobCloneOptions, ctx: CliContext): Promise<void> {
  return cloneOrResume(opts, ctx, 'clone');
}

export function jobCloneCommand(ctx: CliContext): Command {
  return cloneOrResumeCommand(ctx, 'clone');
}
