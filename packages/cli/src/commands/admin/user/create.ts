import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';

export interface UserCreateOptions extends ConnectionFlags {
  username: string;
  email: string;
  name?: string;
  surname?: string;
  admin?: boolean;
}

/** Creates a user and prints their id (give them a workspace and a key with `admin member|apikey create`). */
export async function userCreate(opts: UserCreateOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const user = await withClient(conn, (c) =>
    c.admin.createUser({
      username: opts.username,
      email: opts.email,
      ...(opts.name !== undefined && { name: opts.name }),
      ...(opts.surname !== undefined && { surname: opts.surname }),
      ...(opts.admin && { isAdmin: true }),
    }),
  );
  ctx.stdout.write(`${user.id}\n`);
  ctx.stderr.write(`User "${user.username}" created${user.isAdmin ? ' (administrator)' : ''}.\n`);
}

export function userCreateCommand(ctx: CliContext): Command {
  const cmd = new Command('create')
    .description('create a user and print their id')
    .requiredOption('--username <username>', 'login name')
    .requiredOption('--email <email>', 'e-mail address')
    .option('--name <name>', 'first name')
    .option('--surname <surname>', 'last name')
    .option('--admin', 'make the user an administrator');
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: UserCreateOptions) => userCreate(opts, ctx));
}
