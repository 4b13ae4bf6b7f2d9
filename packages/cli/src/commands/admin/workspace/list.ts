import type { AdminWorkspace } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { emitList } from '../../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../../output/format.js';
import type { ListView } from '../../../output/list-view.js';
import { recordsOf } from '../../../output/records.js';

export type WorkspaceListOptions = ConnectionFlags & ListOutputFlags;

export const WORKSPACE_VIEW: ListView<AdminWorkspace> = {
  noun: 'workspaces',
  columns: [
    { header: 'ID', value: (w) => w.id },
    { header: 'NAME', value: (w) => w.name },
    { header: 'MEMBERS', value: (w) => w.memberCount },
    { header: 'CREATED', value: (w) => w.createdAt },
  ],
  records: recordsOf<AdminWorkspace>(['id', 'name', 'memberCount', 'createdAt']),
};

export async function workspaceList(opts: WorkspaceListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const workspaces = await withClient(conn, (c) => c.admin.listWorkspaces());
  await emitList(workspaces, WORKSPACE_VIEW, opts, ctx);
}

export function workspaceListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list every workspace');
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: WorkspaceListOptions) => workspaceList(opts, ctx));
}
