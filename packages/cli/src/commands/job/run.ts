import { Command, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { integerIn } from '../../options/integer.js';
import { afterLaunch, reportLaunched } from './follow.js';
import type { WorkflowType } from '@runyard/client';
import { readyEngineServer } from './wdl-engine.js';
import {
  addWaitOptions,
  checkOneRevision,
  costLimitOption,
  EXECUTION_PLATFORMS,
  executionPlatformOption,
  existingFile,
  instanceDiskOption,
  nextflowVersionOption,
  parameterOption,
  REPOSITORY_PLATFORMS,
  repositoryPlatformOption,
  required,
  withProfile,
  type WaitFlags,
} from './job-options.js';

export interface JobRunOptions extends ConnectionFlags, WaitFlags {
  projectName?: string;
  workflowName?: string;
  last?: boolean;
  jobConfig?: string;
  paramsFile?: string;
  parameter?: string[];
  nextflowProfile?: string;
  nextflowVersion?: string;
  gitCommit?: string;
  gitTag?: string;
  gitBranch?: string;
  jobName: string;
  resumable?: boolean;
  doNotSaveLogs?: boolean;
  jobQueue?: string;
  instanceType: string;
  instanceDisk: number;
  wdlMainfile?: string;
  wdlImportsfile?: string;
  cromwellToken?: string;
  repositoryPlatform?: (typeof REPOSITORY_PLATFORMS)[number];
  executionPlatform?: (typeof EXECUTION_PLATFORMS)[number];
  hpcId: string;
  azureWorkerInstanceType: string;
  azureWorkerInstanceDisk: number;
  azureWorkerInstanceSpot?: boolean;
  costLimit: number;
  accelerateFileStaging?: boolean;
  accelerateSavingResults?: boolean;
  usePrivateDockerRepository?: boolean;
}

/** cloudos-cli's "let the platform choose" instance type. */
const NONE_SELECTED = 'NONE_SELECTED';

/** Options that mean nothing on hpc, by their attribute name. */
const IGNORED_ON_HPC: Record<string, string> = {
  jobQueue: '--job-queue',
  instanceType: '--instance-type',
  instanceDisk: '--instance-disk',
  costLimit: '--cost-limit',
  doNotSaveLogs: '--do-not-save-logs',
  accelerateFileStaging: '--accelerate-file-staging',
};

/**
 * Launches a workflow (Nextflow, or WDL: its main file recorded at import) with send_job: the workflow type and
 * module flag, project, workflow and queue are looked up by name, the parameters come from
 * --job-config then -p. Prints the job id (stdout) and its link (stderr); with --wait-completion
 * follows it and exits 0 only if it completed.
 */
export async function jobRun(opts: JobRunOptions, ctx: CliContext, explicit: (name: string) => boolean = () => true): Promise<void> {
  checkOneRevision(opts);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const projectName = required(ctx, opts.profile, opts.projectName, 'projectName');
  const workflowName = required(ctx, opts.profile, opts.workflowName, 'workflowName');
  const platform = withProfile(ctx, opts.profile, opts.executionPlatform, 'executionPlatform', EXECUTION_PLATFORMS, 'aws');
  const repositoryPlatform = withProfile(ctx, opts.profile, opts.repositoryPlatform, 'repositoryPlatform', REPOSITORY_PLATFORMS, 'github');
  if (platform === 'hpc') {
    const ignored = Object.entries(IGNORED_ON_HPC)
      .filter(([attr]) => (opts as unknown as Record<string, unknown>)[attr] !== undefined && explicit(attr))
      .map(([, flag]) => flag);
    if (ignored.length) ctx.stderr.write(`Note: on hpc these options are ignored: ${ignored.join(', ')}.\n`);
    ctx.stderr.write('Note: on hpc the process logs are not saved.\n');
  }
  await withClient(
    conn,
    async (client) => {
      // A WDL job names the workspace's engine server, which must run (started here when stopped). Its main file is
      // the one recorded at import, unless --wdl-mainfile picks another workflow of the name.
      const workflowType = await client.detectWorkflow(workflowName, conn.workspaceId, Boolean(opts.last));
      const cromwellId = workflowType === 'wdl' ? await readyEngineServer(client, conn.workspaceId, ctx) : undefined;
      const id = await client.sendJob({
        workflowType: workflowType as WorkflowType,
        workspaceId: conn.workspaceId,
        projectName,
        workflowName,
        last: Boolean(opts.last),
        mainfile: opts.wdlMainfile,
        importsfile: opts.wdlImportsfile,
        repositoryPlatform,
        jobConfig: opts.jobConfig,
        parameters: opts.parameter,
        paramsFile: opts.paramsFile,
        gitCommit: opts.gitCommit,
        gitTag: opts.gitTag,
        gitBranch: opts.gitBranch,
        jobName: opts.jobName,
        resumable: Boolean(opts.resumable),
        saveLogs: !opts.doNotSaveLogs,
        jobQueue: opts.jobQueue,
        nextflowProfile: opts.nextflowProfile,
        nextflowVersion: opts.nextflowVersion,
        ...(opts.instanceType !== NONE_SELECTED && { instanceType: opts.instanceType }),
        instanceDisk: opts.instanceDisk,
        executionPlatform: platform,
        hpcId: opts.hpcId,
        azureWorkerInstanceType: opts.azureWorkerInstanceType,
        azureWorkerInstanceDisk: opts.azureWorkerInstanceDisk,
        azureWorkerInstanceSpot: Boolean(opts.azureWorkerInstanceSpot),
        costLimit: opts.costLimit,
        useMountpoints: Boolean(opts.accelerateFileStaging) && platform === 'aws',
        accelerateSavingResults: Boolean(opts.accelerateSavingResults),
        dockerLogin: Boolean(opts.usePrivateDockerRepository),
        ...(cromwellId && { cromwellId }),
        onWarning: (m) => ctx.stderr.write(`Warning: ${m}\n`),
      });
      reportLaunched(ctx, conn, id, `Job "${opts.jobName}" launched`);
      await afterLaunch(client, conn, id, opts, ctx);
    },
    { engineToken: opts.cromwellToken },
  );
}

export function jobRunCommand(ctx: CliContext): Command {
  const cmd = new Command('run')
    .description('launch a workflow (Nextflow or WDL) and print the job id')
    .option('--project-name <name>', "project the job belongs to (default: the profile's project_name)")
    .option('--workflow-name <name>', "workflow to run (default: the profile's workflow_name)")
    .option('--last', 'the most recently imported workflow when several have the name')
    .option('--job-config <file>', 'a file with a params { name = value } block', existingFile)
    .option('--params-file <url>', 'an s3:// or az:// JSON or YAML file of workflow parameters')
    .addOption(parameterOption())
    .option('--nextflow-profile <profile>', 'Nextflow profile(s) to run with, comma-separated')
    .addOption(nextflowVersionOption())
    .option('--git-commit <sha>', 'run this commit of the repository')
    .option('--git-tag <tag>', 'run this tag of the repository')
    .option('--git-branch <branch>', 'run this branch of the repository (default: the default branch)')
    .option('--job-name <name>', 'name of the job', 'new_job')
    .option('--resumable', 'keep the work directory so the job can be resumed')
    .option('--do-not-save-logs', 'do not keep the process logs')
    .option('--job-queue <label>', 'label of the job queue (default: the default queue)')
    .option('--instance-type <type>', 'instance type of the head node', NONE_SELECTED)
    .addOption(instanceDiskOption())
    .option('--wdl-mainfile <path>', 'main .wdl file of a WDL workflow (default: the one recorded at import)')
    .option('--wdl-importsfile <path>', 'imports zip of a WDL workflow')
    .option('-t, --cromwell-token <token>', "the workspace's engine token, for the engine server's routes (default: the API key)")
    .addOption(repositoryPlatformOption())
    .addOption(executionPlatformOption())
    .option('--hpc-id <id>', 'HPC cluster id (execution platform hpc; "runyard admin hpc list")', '660fae20f93358ad61e0104b')
    .option('--azure-worker-instance-type <type>', 'instance type of the Azure workers', 'Standard_D4as_v4')
    .addOption(
      new Option('--azure-worker-instance-disk <gb>', 'disk of the Azure workers, in GB').argParser(integerIn(1, 65_536)).default(100),
    )
    .option('--azure-worker-instance-spot', 'Azure workers on spot instances')
    .addOption(costLimitOption(30))
    .option('--accelerate-file-staging', 'stage files with a mounted file system (aws)')
    .option('--accelerate-saving-results', 'write results straight to storage')
    .option('--use-private-docker-repository', 'pull images with the docker registry account linked to your user');
  addWaitOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobRunOptions, command: Command) => jobRun(opts, ctx, (name) => command.getOptionValueSource(name) === 'cli'));
}
