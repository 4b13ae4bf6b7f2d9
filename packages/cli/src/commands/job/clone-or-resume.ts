import { Command, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { afterLaunch, reportLaunched } from './follow.js';
import {
  addWaitOptions,
  costLimitOption,
  nextflowVersionOption,
  parameterOption,
  REPOSITORY_PLATFORMS,
  type WaitFlags,
} from './job-options.js';
import { jobId } from '../../options/object-id.js';

export interface JobCloneOptions extends ConnectionFlags, WaitFlags {
  jobId: string;
  projectName?: string;
  parameter?: string[];
  nextflowProfile?: string;
  nextflowVersion?: string;
  gitBranch?: string;
  repositoryPlatform: (typeof REPOSITORY_PLATFORMS)[number];
  jobName?: string;
  doNotSaveLogs?: boolean;
  jobQueue?: string;
  instanceType?: string;
  costLimit?: number;
  accelerateFileStaging?: boolean;
  accelerateSavingResults?: boolean;
  resumable?: boolean;
}

/**
 * clone_or_resume_job: a new job from the request of another, with the options given replacing its
 * values (--project-name only from the command line, never from the profile, as cloudos-cli).
 * Resume also continues the original's work directory, which needs a finished, resumable job.
 */
export async function cloneOrResume(opts: JobCloneOptions, ctx: CliContext, mode: 'clone' | 'resume'): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  await withClient(conn, async (client) => {
    const id = await client.cloneOrResumeJob({
      workspaceId: conn.workspaceId,
      sourceJobId: opts.jobId,
      mode,
      queueName: opts.jobQueue,
      costLimit: opts.costLimit,
      masterInstance: opts.instanceType,
      jobName: opts.jobName,
      nextflowVersion: opts.nextflowVersion,
      branch: opts.gitBranch,
      repositoryPlatform: opts.repositoryPlatform,
      profile: opts.nextflowProfile,
      doNotSaveLogs: opts.doNotSaveLogs,
      useFusion: opts.accelerateFileStaging,
      accelerateSavingResults: opts.accelerateSavingResults,
      resumable: opts.resumable,
      projectName: opts.projectName,
      parameters: opts.parameter,
      onWarning: (m) => ctx.stderr.write(`Warning: ${m}\n`),
    });
    reportLaunched(ctx, conn, id, `Job ${opts.jobId} ${mode === 'clone' ? 'cloned' : 'resumed'} as ${id}`);
    await afterLaunch(client, conn, id, opts, ctx);
  });
}

export function cloneOrResumeCommand(ctx: CliContext, mode: 'clone' | 'resume'): Command {
  const cmd = new Command(mode)
    .description(
      mode === 'clone'
        ? 'launch a new job with the settings of another, changing the ones given'
        : "launch a new job that continues a finished resumable job's work, changing the settings given",
    )
    .requiredOption('--job-id <id>', 'id of the job to ' + mode, jobId)
    .option('--project-name <name>', 'run the new job in this project')
    .addOption(parameterOption())
    .option('--nextflow-profile <profile>', 'Nextflow profile(s)')
    .addOption(nextflowVersionOption())
    .option('--git-branch <branch>', "run this branch of the workflow's repository")
    .addOption(
      new Option('--repository-platform <platform>', 'where the repository is hosted (for --git-branch)')
        .choices(REPOSITORY_PLATFORMS)
        .default('github'),
    )
    .option('--job-name <name>', 'name of the new job (default: the original name)')
    .option('--do-not-save-logs', 'do not keep the process logs')
    .option('--job-queue <label>', 'label or name of the job queue')
    .option('--instance-type <type>', 'instance type of the head node')
    .addOption(costLimitOption())
    .option('--accelerate-file-staging', 'stage files with a mounted file system (aws)')
    .option('--accelerate-saving-results', 'write results straight to storage');
  if (mode === 'clone') cmd.option('--resumable', 'make the new job resumable');
  addWaitOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobCloneOptions) => cloneOrResume(opts, ctx, mode));
}
