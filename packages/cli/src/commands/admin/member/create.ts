import { Command, Option } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { objectId } from '../../../options/object-id.js';

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;

/** --workspace-id here is the workspace to change, not a connection setting. */
export interface MemberCreateOptions extends Omit<ConnectionFlags, 'workspaceId'> {
  workspaceId: string;
  userId: string;
  role?: (typeof ROLES)[number];
}

/** Adds a user to a workspace, or changes their role there. */
export async function memberCreate(opts: MemberCreateOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection({ ...opts, workspaceId: undefined }, ctx, { workspace: false });
  const m = await withClient(conn, (c) => c.admin.addMember(opts.workspaceId, opts.userId, opts.role));
  ctx.stderr.write(`User "${m.username}" (${m.userId}) is ${m.role} of workspace ${m.workspaceId}.\n`);
}

export function memberCreateCommand(ctx: CliContext): Command {
  const cmd = new Command('create')
    .description("add a user to a workspace (or change the user's role there)")
    .requiredOption('--workspace-id <id>', 'workspace to add the user to', objectId('workspace', '"runyard admin workspace list"'))
    .requiredOption('--user-id <id>', 'user to add', objectId('user', '"runyard admin user list"'))
    .addOption(new Option('--role <role>', 'role in the workspace (default: member)').choices(ROLES));
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: MemberCreateOptions) => memberCreate(opts, ctx));
}
