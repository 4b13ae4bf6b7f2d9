import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { objectId } from '../../../options/object-id.js';

export interface UserRevokeOptions extends ConnectionFlags {
  userId: string;
}

/** Deactivates a user: their API keys stop working; their projects stay. */
export async function userRevoke(opts: UserRevokeOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const user = await withClient(conn, (c) => c.admin.deactivateUser(opts.userId));
  ctx.stderr.write(`User "${user.username}" (${user.id}) deactivated; their API keys no longer work.\n`);
}

export function userRevokeCommand(ctx: CliContext): Command {
  const cmd = new Command('revoke')
    .description('deactivate a user (their API keys stop working)')
    .requiredOption('--user-id <id>', 'user to deactivate', objectId('user', '"runyard admin user list"'));
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: UserRevokeOptions) => userRevoke(opts, ctx));
}
