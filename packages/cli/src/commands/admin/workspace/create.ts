import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { objectId } from '../../../options/object-id.js';

export interface WorkspaceCreateOptions extends ConnectionFlags {
  name: string;
  ownerId?: string;
}

/** Creates a workspace (owned by --owner-id when given) and prints its id. */
export async function workspaceCreate(opts: WorkspaceCreateOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const ws = await withClient(conn, (c) => c.admin.createWorkspace(opts.name, opts.ownerId));
  ctx.stdout.write(`${ws.id}\n`);
  ctx.stderr.write(`Workspace "${ws.name}" created${opts.ownerId ? ` with owner ${opts.ownerId}` : ''}.\n`);
}

export function workspaceCreateCommand(ctx: CliContext): Command {
  const cmd = new Command('create')
    .description('create a workspace and print its id')
    .requiredOption('--name <name>', 'workspace name')
    .option('--owner-id <id>', 'user who owns the workspace', objectId('user', '"runyard admin user list"'));
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: WorkspaceCreateOptions) => workspaceCreate(opts, ctx));
}
