import type { AdminUser } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { emitList } from '../../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../../output/format.js';
import type { ListView } from '../../../output/list-view.js';
import { recordsOf } from '../../../output/records.js';

export type UserListOptions = ConnectionFlags & ListOutputFlags;

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

export const USER_VIEW: ListView<AdminUser> = {
  noun: 'users',
  columns: [
    { header: 'ID', value: (u) => u.id },
    { header: 'USERNAME', value: (u) => u.username },
    { header: 'EMAIL', value: (u) => u.email },
    { header: 'NAME', value: (u) => [u.name, u.surname].filter(Boolean).join(' ') },
    { header: 'ADMIN', value: (u) => yesNo(u.isAdmin) },
    { header: 'ACTIVE', value: (u) => yesNo(u.active) },
    { header: 'CREATED', value: (u) => u.createdAt },
  ],
  records: recordsOf<AdminUser>(['id', 'username', 'email', 'name', 'surname', 'isAdmin', 'active', 'createdAt']),
};

export async function userList(opts: UserListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const users = await withClient(conn, (c) => c.admin.listUsers());
  await emitList(users, USER_VIEW, opts, ctx);
}

export function userListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list every user');
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: UserListOptions) => userList(opts, ctx));
}
