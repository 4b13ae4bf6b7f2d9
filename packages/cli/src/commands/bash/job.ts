import type { SendJobOptions } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { integerIn } from '../../options/integer.js';
import { afterLaunch, reportLaunched } from '../job/follow.js';
import {
  addWaitOptions,
  costLimitOption,
  EXECUTION_PLATFORMS,
  executionPlatformOption,
  instanceDiskOption,
  parameterOption,
  REPOSITORY_PLATFORMS,
  repositoryPlatformOption,
  required,
  withProfile,
  type WaitFlags,
} from '../job/job-options.js';

export interface BashJobOptions extends ConnectionFlags, WaitFlags {
  command: string;
  projectName?: string;
  workflowName?: string;
  last?: boolean;
  parameter?: string[];
  jobName: string;
  doNotSaveLogs?: boolean;
  jobQueue?: string;
  instanceType: string;
  instanceDisk: number;
  cpus: number;
  memory: number;
  repositoryPlatform?: (typeof REPOSITORY_PLATFORMS)[number];
  executionPlatform?: (typeof EXECUTION_PLATFORMS)[number];
  hpcId?: string;
  costLimit: number;
  accelerateSavingResults?: boolean;
}

export const NONE_SELECTED = 'NONE_SELECTED';

/**
 * Runs a shell command in a container workflow (send_job with the docker workflow type). The -p
 * parameters reach the command as arguments and RUNYARD_PARAM_* variables, never as shell text.
 * Prints the job id (stdout) and its link (stderr); with --wait-completion follows it and exits 0
 * only if it completed.
 */
export async function bashJob(opts: BashJobOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const projectName = required(ctx, opts.profile, opts.projectName, 'projectName');
  const submission = bashSubmission(opts, ctx, conn.workspaceId, projectName);
  await withClient(conn, async (client) => {
    const id = await client.sendJob({ ...submission, command: opts.command });
    reportLaunched(ctx, conn, id, `Job "${opts.jobName}" launched`);
    await afterLaunch(client, conn, id, opts, ctx);
  });
}

/** What bash job and bash array-job submit alike: all but the command (and the array file). */
export function bashSubmission(
  opts: Omit<BashJobOptions, 'command'>,
  ctx: CliContext,
  workspaceId: string,
  projectName: string,
): SendJobOptions {
  return {
    workspaceId,
    projectName,
    workflowName: required(ctx, opts.profile, opts.workflowName, 'workflowName'),
    workflowType: 'docker',
    isModule: false,
    last: Boolean(opts.last),
    repositoryPlatform: withProfile(ctx, opts.profile, opts.repositoryPlatform, 'repositoryPlatform', REPOSITORY_PLATFORMS, 'github'),
    parameters: opts.parameter,
    jobName: opts.jobName,
    saveLogs: !opts.doNotSaveLogs,
    jobQueue: opts.jobQueue,
    ...(opts.instanceType !== NONE_SELECTED && { instanceType: opts.instanceType }),
    instanceDisk: opts.instanceDisk,
    cpus: opts.cpus,
    memory: opts.memory,
    executionPlatform: withProfile(ctx, opts.profile, opts.executionPlatform, 'executionPlatform', EXECUTION_PLATFORMS, 'aws'),
    hpcId: opts.hpcId,
    costLimit: opts.costLimit,
    accelerateSavingResults: Boolean(opts.accelerateSavingResults),
    onWarning: (m) => ctx.stderr.write(`Warning: ${m}\n`),
  };
}

/** The options bash job and bash array-job share (all but the command), with the wait options. */
export function addBashJobOptions(cmd: Command): Command {
  cmd
    .option('--project-name <name>', "project the job belongs to (default: the profile's project_name)")
    .option('--workflow-name <name>', "container workflow to run in (default: the profile's workflow_name)")
    .option('--last', 'the most recently created workflow when several have the name')
    .addOption(parameterOption())
    .option('--job-name <name>', 'name of the job', 'new_job')
    .option('--do-not-save-logs', 'do not keep the process logs')
    .option('--job-queue <label>', 'label of the job queue (default: the default queue)')
    .option('--instance-type <type>', 'instance type', NONE_SELECTED)
    .addOption(instanceDiskOption())
    .option('--cpus <n>', 'CPUs of the task', integerIn(1, 1024), 1)
    .option('--memory <gb>', 'memory of the task, in GB', integerIn(1, 65_536), 4)
    .addOption(repositoryPlatformOption())
    .addOption(executionPlatformOption())
    // Runyard's own: cloudos-cli's bash job sends no hpc id (hpc null), so it cannot name a cluster.
    .option('--hpc-id <id>', 'HPC cluster id (execution platform hpc; "runyard admin hpc list")')
    .addOption(costLimitOption(30))
    .option('--accelerate-saving-results', 'write results straight to storage');
  return addWaitOptions(cmd);
}

export function bashJobCommand(ctx: CliContext): Command {
  const cmd = new Command('job')
    .description('run a shell command in a container workflow and print the job id')
    .requiredOption('--command <command>', 'the command to run (a shell command line)');
  addBashJobOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: BashJobOptions) => bashJob(opts, ctx));
}
