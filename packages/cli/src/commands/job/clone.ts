import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { cloneOrResumeCommand } from './clone-or-resume.js';

export function jobCloneCommand(ctx: CliContext): Command {
  return cloneOrResumeCommand(ctx, 'clone');
}
