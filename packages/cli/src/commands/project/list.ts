import type { Project } from '@runyard/client';
import { Command, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { integerIn } from '../../options/integer.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { ListView } from '../../output/list-view.js';
import { loadSdk } from '../../sdk.js';

export interface ProjectListOptions extends ConnectionFlags, ListOutputFlags {
  allFields?: boolean;
  page?: number;
  pageSize?: number;
}

const ownerOf = (p: Project) => [p.user?.name, p.user?.surname].filter(Boolean).join(' ') || p.user?.email;

export const PROJECT_VIEW: ListView<Project> = {
  noun: 'projects',
  columns: [
    { header: 'ID', value: (p) => p._id },
    { header: 'NAME', value: (p) => p.name },
    { header: 'OWNER', value: ownerOf },
    { header: 'CREATED', value: (p) => p.createdAt },
    { header: 'WORKFLOWS', value: (p) => p.workflowCount },
    { header: 'JOBS', value: (p) => p.jobCount },
    { header: 'SESSIONS', value: (p) => p.notebookSessionCount },
  ],
  // CSV carries process_project_list's columns, as cloudos-cli's does.
  records: async (projects, allFields) => (await loadSdk()).processProjectList(projects, allFields),
};

/** Every project of the workspace, or with --page one page of --page-size (default 10). */
export async function projectList(opts: ProjectListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const projects = await withClient(conn, (client) =>
    opts.page !== undefined
      ? client.getProjectList(conn.workspaceId, { getAll: false, page: opts.page, pageSize: opts.pageSize ?? 10 })
      : client.getProjectList(conn.workspaceId, { getAll: true, ...(opts.pageSize !== undefined && { maxPageSize: opts.pageSize }) }),
  );
  await emitList(projects, PROJECT_VIEW, opts, ctx);
}

export function projectListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list the projects of the workspace');
  addListOutputOptions(cmd);
  cmd
    .option('--all-fields', 'every field of the project documents (table and csv)')
    .addOption(new Option('--page <n>', 'only this page (1 is the first)').argParser(integerIn(1, 1_000_000)))
    .addOption(
      new Option('--page-size <n>', 'projects per page: of --page (default 10), or of each request when listing all').argParser(
        integerIn(1, 1000),
      ),
    );
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: ProjectListOptions) => projectList(opts, ctx));
}
