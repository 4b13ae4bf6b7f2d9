import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';

export interface ProjectCreateOptions extends ConnectionFlags {
  newProject: string;
}

/** Creates a project and prints its id. */
export async function projectCreate(opts: ProjectCreateOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const id = await withClient(conn, (client) => client.createProject(conn.workspaceId, opts.newProject));
  ctx.stdout.write(`${id}\n`);
  ctx.stderr.write(`Project "${opts.newProject}" created in workspace ${conn.workspaceId}.\n`);
}

export function projectCreateCommand(ctx: CliContext): Command {
  const cmd = new Command('create')
    .description('create a project in the workspace and print its id')
    .requiredOption('--new-project <name>', 'name of the new project');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: ProjectCreateOptions) => projectCreate(opts, ctx));
}
