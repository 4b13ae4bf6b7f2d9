import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { objectId } from '../../../options/object-id.js';

/** --workspace-id here is the workspace to change, not a connection setting. */
export interface MemberRevokeOptions extends Omit<ConnectionFlags, 'workspaceId'> {
  workspaceId: string;
  userId: string;
}

/** Removes a user from a workspace. */
export async function memberRevoke(opts: MemberRevokeOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection({ ...opts, workspaceId: undefined }, ctx, { workspace: false });
  const m = await withClient(conn, (c) => c.admin.removeMember(opts.workspaceId, opts.userId));
  ctx.stderr.write(`User "${m.username}" (${m.userId}) removed from workspace ${m.workspaceId}.\n`);
}

export function memberRevokeCommand(ctx: CliContext): Command {
  const cmd = new Command('revoke')
    .description('remove a user from a workspace')
    .requiredOption('--workspace-id <id>', 'workspace to remove the user from', objectId('workspace', '"runyard admin workspace list"'))
    .requiredOption('--user-id <id>', 'user to remove', objectId('user', '"runyard admin user list"'));
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: MemberRevokeOptions) => memberRevoke(opts, ctx));
}
