import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { objectId } from '../../../options/object-id.js';

export interface ApiKeyRevokeOptions extends ConnectionFlags {
  keyId: string;
}

/** Revokes an API key: requests with it get 401 from then on. */
export async function apiKeyRevoke(opts: ApiKeyRevokeOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const key = await withClient(conn, (c) => c.admin.revokeApiKey(opts.keyId));
  ctx.stderr.write(`API key ${key.id} (${key.prefix}...) revoked.\n`);
}

export function apiKeyRevokeCommand(ctx: CliContext): Command {
  const cmd = new Command('revoke')
    .description('revoke an API key')
    .requiredOption(
      '--key-id <id>',
      'key to revoke (its id, from "admin apikey list")',
      objectId('API key', '"runyard admin apikey list"'),
    );
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: ApiKeyRevokeOptions) => apiKeyRevoke(opts, ctx));
}
