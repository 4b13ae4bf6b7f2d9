import type { AdminApiKey } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { emitList } from '../../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../../output/format.js';
import type { ListView } from '../../../output/list-view.js';
import { recordsOf } from '../../../output/records.js';
import { objectId } from '../../../options/object-id.js';

export type ApiKeyListOptions = ConnectionFlags & ListOutputFlags & { userId?: string };

export const API_KEY_VIEW: ListView<AdminApiKey> = {
  noun: 'API keys',
  columns: [
    { header: 'ID', value: (k) => k.id },
    { header: 'USER', value: (k) => k.userId },
    { header: 'NAME', value: (k) => k.name },
    { header: 'PREFIX', value: (k) => k.prefix },
    { header: 'CREATED', value: (k) => k.createdAt },
    { header: 'LAST USED', value: (k) => k.lastUsedAt ?? '' },
    { header: 'REVOKED', value: (k) => k.revokedAt ?? '' },
  ],
  records: recordsOf<AdminApiKey>(['id', 'userId', 'name', 'prefix', 'createdAt', 'lastUsedAt', 'revokedAt']),
};

/** The keys (never their secrets), of every user or of one. */
export async function apiKeyList(opts: ApiKeyListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const keys = await withClient(conn, (c) => c.admin.listApiKeys(opts.userId));
  await emitList(keys, API_KEY_VIEW, opts, ctx);
}

export function apiKeyListCommand(ctx: CliContext): Command {
  const cmd = new Command('list')
    .description('list API keys (not their secrets)')
    .option('--user-id <id>', 'only the keys of this user', objectId('user', '"runyard admin user list"'));
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: ApiKeyListOptions) => apiKeyList(opts, ctx));
}
