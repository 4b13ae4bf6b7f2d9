import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { workflowArchiveCommand } from './archive.js';
import { workflowBranchesCommand } from './branches.js';
import { workflowCreateDockerCommand } from './create-docker.js';
import { workflowImportCommand } from './import.js';
import { workflowListCommand } from './list.js';
import { workflowUnarchiveCommand } from './unarchive.js';

export function workflowNoun(ctx: CliContext): Command {
  return new Command('workflow')
    .description('workflows of a workspace: import from git, list, branches, container workflows, archive')
    .addCommand(workflowListCommand(ctx))
    .addCommand(workflowImportCommand(ctx))
    .addCommand(workflowCreateDockerCommand(ctx))
    .addCommand(workflowBranchesCommand(ctx))
    .addCommand(workflowArchiveCommand(ctx))
    .addCommand(workflowUnarchiveCommand(ctx));
}
