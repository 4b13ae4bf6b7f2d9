import { Command, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors/cli-error.js';
import { objectId } from '../../options/object-id.js';
import { findWorkflow } from './find.js';

export interface WorkflowArchiveOptions extends ConnectionFlags {
  workflowName?: string;
  workflowId?: string;
  last?: boolean;
}

/**
 * Archives (or unarchives) one workflow, chosen by id or by name; by name, a workflow not yet in
 * the target state is preferred, and one already in it is left as it is. Prints the id.
 */
export async function setWorkflowArchived(opts: WorkflowArchiveOptions, ctx: CliContext, archived: boolean): Promise<void> {
  const verb = archived ? 'archive' : 'unarchive';
  if (opts.workflowName === undefined && opts.workflowId === undefined) {
    throw new UsageError(`Say which workflow to ${verb}: --workflow-name NAME or --workflow-id ID.`);
  }
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const { wf, changed } = await withClient(conn, async (client) => {
    let id = opts.workflowId;
    if (id === undefined) {
      const found = await findWorkflow(client, conn.workspaceId, opts.workflowName!, {
        last: opts.last,
        preferArchived: !archived,
        ambiguityHint: ', or --workflow-id',
      });
      if (found.archived.status === archived) return { wf: found, changed: false };
      id = found._id;
    }
    const wf = archived ? await client.archiveWorkflow(conn.workspaceId, id) : await client.unarchiveWorkflow(conn.workspaceId, id);
    return { wf, changed: true };
  });
  ctx.stdout.write(`${wf._id}\n`);
  const state = archived ? 'archived' : 'not archived';
  ctx.stderr.write(changed ? `Workflow "${wf.name}" (${wf._id}) ${verb}d.\n` : `Workflow "${wf.name}" (${wf._id}) is already ${state}.\n`);
}

export function setArchivedCommand(ctx: CliContext, archived: boolean): Command {
  const verb = archived ? 'archive' : 'unarchive';
  const cmd = new Command(verb)
    .description(
      archived
        ? 'archive a workflow: "workflow list" shows it only with --archived, and name lookups for jobs skip it'
        : 'unarchive a workflow: "workflow list" shows it again',
    )
    .addOption(new Option('--workflow-name <name>', 'name of the workflow').conflicts('workflowId'))
    .addOption(
      new Option('--workflow-id <id>', 'id of the workflow').argParser(objectId('workflow', '"runyard workflow list --all-fields"')),
    )
    .addOption(new Option('--last', 'the most recently imported workflow when several have the name').conflicts('workflowId'));
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: WorkflowArchiveOptions) => setWorkflowArchived(opts, ctx, archived));
}
