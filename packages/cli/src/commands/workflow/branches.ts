import type { BranchesReply } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { ListView } from '../../output/list-view.js';
import { loadSdk } from '../../sdk.js';
import { findWorkflow } from './find.js';
import { repositoryPlatformOption, type Platform } from './platform.js';

type Branch = BranchesReply['branches'][number];

export interface WorkflowBranchesOptions extends ConnectionFlags, ListOutputFlags {
  workflowName: string;
  last?: boolean;
  repositoryPlatform?: Platform;
}

export const BRANCH_VIEW: ListView<Branch> = {
  noun: 'branches',
  columns: [
    { header: 'NAME', value: (b) => b.name },
    { header: 'COMMIT', value: (b) => b.commit.sha },
    { header: 'PROTECTED', value: (b) => b.protected },
  ],
  records: async (branches, allFields) => (await loadSdk()).toTable(branches, ['name', 'commit.sha', 'commit.url', 'protected'], allFields),
};

/** The branches of the named workflow's repository (every page). */
export async function workflowBranches(opts: WorkflowBranchesOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const branches = await withClient(conn, async (client) => {
    const wf = await findWorkflow(client, conn.workspaceId, opts.workflowName, {
      last: opts.last,
      platform: opts.repositoryPlatform,
      ambiguityHint: ', or --repository-platform',
    });
    const repo = wf.repository;
    if (!repo) throw new CliError(`Workflow "${wf.name}" (${wf._id}) is a ${wf.workflowType} workflow without a git repository.`);
    return (
      await client.getBranches(conn.workspaceId, {
        repositoryIdentifier: repo.repositoryId,
        owner: repo.owner.login,
        workflowOwnerId: wf.owner.id,
        strategy: repo.platform,
      })
    ).branches;
  });
  await emitList(branches, BRANCH_VIEW, opts, ctx);
}

export function workflowBranchesCommand(ctx: CliContext): Command {
  const cmd = new Command('branches')
    .description("list the branches of a workflow's repository")
    .requiredOption('--workflow-name <name>', 'name of the workflow')
    .option('--last', 'the most recently imported workflow when several have the name')
    .addOption(repositoryPlatformOption('only a workflow from this platform'));
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: WorkflowBranchesOptions) => workflowBranches(opts, ctx));
}
