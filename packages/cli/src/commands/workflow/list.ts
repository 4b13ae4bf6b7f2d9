import type { Workflow } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { Column, ListView } from '../../output/list-view.js';
import { loadSdk } from '../../sdk.js';

export interface WorkflowListOptions extends ConnectionFlags, ListOutputFlags {
  allFields?: boolean;
  archived?: boolean;
}

/** Table headers of process_workflow_list's columns. */
const HEADERS: Record<string, string> = {
  _id: 'ID',
  name: 'NAME',
  'archived.status': 'ARCHIVED',
  mainFile: 'MAIN FILE',
  workflowType: 'TYPE',
  group: 'GROUP',
  'repository.name': 'REPOSITORY',
  'repository.platform': 'PLATFORM',
  'repository.url': 'URL',
  'repository.isPrivate': 'PRIVATE',
};

/** The value at a dotted path (`repository.url`) of a workflow document. */
function at(w: Workflow, dotted: string): string | number | boolean | null | undefined {
  let v: unknown = w;
  for (const key of dotted.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v === undefined || v === null || typeof v !== 'object' ? (v as string | number | boolean | null | undefined) : JSON.stringify(v);
}

/** The table shows process_workflow_list's columns (those present in the list); CSV carries the same. */
export function workflowView(columns: readonly string[]): ListView<Workflow> {
  return {
    noun: 'workflows',
    columns: columns.map((c): Column<Workflow> => ({ header: HEADERS[c] ?? c, value: (w) => at(w, c) })),
    records: async (workflows, allFields) => (await loadSdk()).processWorkflowList(workflows, allFields),
  };
}

/** Every workflow of the workspace (the archived ones instead with --archived). */
export async function workflowList(opts: WorkflowListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const workflows = await withClient(conn, (client) =>
    client.getWorkflowList(conn.workspaceId, { getAll: true, archivedStatus: Boolean(opts.archived) }),
  );
  const { processWorkflowList } = await loadSdk();
  await emitList(workflows, workflowView(processWorkflowList(workflows).columns), opts, ctx);
}

export function workflowListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list the workflows of the workspace');
  addListOutputOptions(cmd);
  cmd
    .option('--all-fields', 'every field of the workflow documents (table and csv)')
    .option('--archived', 'list the archived workflows instead');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: WorkflowListOptions) => workflowList(opts, ctx));
}
