import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { jobAbortCommand } from './abort.js';
import { jobArchiveCommand } from './archive.js';
import { jobCloneCommand } from './clone.js';
import { jobCostCommand } from './cost.js';
import { jobDetailsCommand } from './details.js';
import { jobListCommand } from './list.js';
import { jobLogsCommand } from './logs.js';
import { jobRelatedCommand } from './related.js';
import { jobResultsCommand } from './results.js';
import { jobResumeCommand } from './resume.js';
import { jobRunCommand } from './run.js';
import { jobStatusCommand } from './status.js';
import { jobUnarchiveCommand } from './unarchive.js';
import { jobWorkdirCommand } from './workdir.js';

export function jobNoun(ctx: CliContext): Command {
  return new Command('job')
    .description(
      'jobs of a workspace: launch, follow, list, abort, archive, clone, resume; their logs, results, working directories and costs',
    )
    .addCommand(jobRunCommand(ctx))
    .addCommand(jobStatusCommand(ctx))
    .addCommand(jobDetailsCommand(ctx))
    .addCommand(jobListCommand(ctx))
    .addCommand(jobAbortCommand(ctx))
    .addCommand(jobArchiveCommand(ctx))
    .addCommand(jobUnarchiveCommand(ctx))
    .addCommand(jobCloneCommand(ctx))
    .addCommand(jobResumeCommand(ctx))
    .addCommand(jobLogsCommand(ctx))
    .addCommand(jobResultsCommand(ctx))
    .addCommand(jobWorkdirCommand(ctx))
    .addCommand(jobRelatedCommand(ctx))
    .addCommand(jobCostCommand(ctx));
}
