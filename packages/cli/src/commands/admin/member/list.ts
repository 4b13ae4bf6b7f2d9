import type { AdminMember } from '@runyard/client';
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

/** --workspace-id here filters the list; it is not a connection setting. */
export type MemberListOptions = Omit<ConnectionFlags, 'workspaceId'> & ListOutputFlags & { workspaceId?: string };

export const MEMBER_VIEW: ListView<AdminMember> = {
  noun: 'memberships',
  columns: [
    { header: 'WORKSPACE', value: (m) => m.workspaceId },
    { header: 'USER', value: (m) => m.userId },
    { header: 'USERNAME', value: (m) => m.username },
    { header: 'ROLE', value: (m) => m.role },
    { header: 'ADDED', value: (m) => m.createdAt },
  ],
  records: recordsOf<AdminMember>(['workspaceId', 'userId', 'username', 'role', 'createdAt']),
};

export async function memberList(opts: MemberListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection({ ...opts, workspaceId: undefined }, ctx, { workspace: false });
  const members = await withClient(conn, (c) => c.admin.listMembers(opts.workspaceId));
  await emitList(members, MEMBER_VIEW, opts, ctx);
}

export function memberListCommand(ctx: CliContext): Command {
  const cmd = new Command('list')
    .description('list memberships, of every workspace or of one')
    .option('--workspace-id <id>', 'only this workspace', objectId('workspace', '"runyard admin workspace list"'));
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: MemberListOptions) => memberList(opts, ctx));
}
