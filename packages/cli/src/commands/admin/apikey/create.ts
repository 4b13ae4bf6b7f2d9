import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { objectId } from '../../../options/object-id.js';

export interface ApiKeyCreateOptions extends ConnectionFlags {
  userId: string;
  name?: string;
}

/** Creates an API key for a user and prints the secret on stdout: the only time it is shown. */
export async function apiKeyCreate(opts: ApiKeyCreateOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const key = await withClient(conn, (c) => c.admin.createApiKey(opts.userId, opts.name));
  ctx.stdout.write(`${key.apikey}\n`);
  ctx.stderr.write(
    `API key ${key.id}${key.name ? ` ("${key.name}")` : ''} created for user ${key.userId}. It is shown only this once: store it now.\n`,
  );
}

export function apiKeyCreateCommand(ctx: CliContext): Command {
  const cmd = new Command('create')
    .description('create an API key for a user and print it (shown once)')
    .requiredOption('--user-id <id>', 'user the key acts as', objectId('user', '"runyard admin user list"'))
    .option('--name <name>', 'a label to recognise the key by');
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: ApiKeyCreateOptions) => apiKeyCreate(opts, ctx));
}
