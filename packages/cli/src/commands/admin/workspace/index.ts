import { Command } from 'commander';
import type { CliContext } from '../../../context.js';
import { workspaceCreateCommand } from './create.js';
import { workspaceListCommand } from './list.js';
import { workspaceSetEngineCommand } from './set-engine.js';

export function workspaceNoun(ctx: CliContext): Command {
  return new Command('workspace')
    .description('workspaces')
    .addCommand(workspaceCreateCommand(ctx))
    .addCommand(workspaceListCommand(ctx))
    .addCommand(workspaceSetEngineCommand(ctx));
}
