import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';

export interface WorkflowCreateDockerOptions extends ConnectionFlags {
  workflowName: string;
  containerName: string;
  defaultCommand?: string;
  group?: string;
  description?: string;
}

/** Creates a container workflow (bash jobs run in it) in the workspace and prints its id; needs an administrator key. */
export async function workflowCreateDocker(opts: WorkflowCreateDockerOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const wf = await withClient(conn, (client) =>
    client.admin.createDockerWorkflow({
      workspaceId: conn.workspaceId,
      name: opts.workflowName,
      containerName: opts.containerName,
      ...(opts.defaultCommand !== undefined && { defaultCommand: opts.defaultCommand }),
      ...(opts.group !== undefined && { group: opts.group }),
      ...(opts.description !== undefined && { description: opts.description }),
    }),
  );
  ctx.stdout.write(`${wf._id}\n`);
  ctx.stderr.write(`Container workflow "${wf.name}" (${opts.containerName}) created in workspace ${conn.workspaceId}.\n`);
}

export function workflowCreateDockerCommand(ctx: CliContext): Command {
  const cmd = new Command('create-docker')
    .description('create a container workflow for bash jobs and print its id (needs an administrator key)')
    .requiredOption('--workflow-name <name>', 'name of the workflow')
    .requiredOption('--container-name <image>', 'container image, e.g. ubuntu:24.04 or broadinstitute/picard:2.27')
    .option('--default-command <command>', 'command the jobs run when they give none')
    .option('--group <group>', 'group, e.g. user (the default) or a module group such as system-tools')
    .option('--description <text>', 'description');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: WorkflowCreateDockerOptions) => workflowCreateDocker(opts, ctx));
}
