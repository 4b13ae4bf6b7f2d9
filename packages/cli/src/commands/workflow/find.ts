import type { RunyardClient, Workflow, WorkflowListReply } from '@runyard/client';
import { CliError } from '../../errors/cli-error.js';

/** The page size of the name search, as the public client's (count, then one call of that size up to 100). */
const MAX_PAGE_SIZE = 100;

export interface FindWorkflowOptions {
  /** The newest of several workflows with the name (by createdAt, then updatedAt). */
  last?: boolean;
  /** Only workflows on this repository platform. */
  platform?: string;
  /** Prefer workflows in this archived state; used by archive and unarchive. */
  preferArchived?: boolean;
  /** What to add to the "more than one" message: how else the user can choose. */
  ambiguityHint?: string;
}

/**
 * Every workflow of the workspace named exactly `name`, archived or not: the same two requests as
 * the SDK's getWorkflowContent (`search=<name>` for the count, then `pageSize=<count>`), without
 * its errors, so that each command can say what went wrong in its own terms.
 */
async function workflowsNamed(client: RunyardClient, workspaceId: string, name: string): Promise<Workflow[]> {
  const search = (query: Record<string, string | number>) =>
    client.request<WorkflowListReply>('GET', '/api/v3/workflows', { query: { teamId: workspaceId, search: name, ...query } });
  const count = (await search({})).paginationMetadata['Pagination-Count'];
  if (!count) return [];
  const found: Workflow[] = [];
  if (count <= MAX_PAGE_SIZE) found.push(...(await search({ pageSize: count })).workflows);
  else {
    for (let page = 1; page <= Math.ceil(count / MAX_PAGE_SIZE); page++) {
      const batch = (await search({ pageSize: MAX_PAGE_SIZE, page })).workflows;
      found.push(...batch);
      if (!batch.length) break;
    }
  }
  return found.filter((w) => w.name === name);
}

const time = (w: Workflow) => Date.parse(w.createdAt ?? w.updatedAt) || Date.parse(w.updatedAt) || 0;

/** The newest workflow (ties: the later one in the list, which the server orders newest first). */
function newest(workflows: Workflow[]): Workflow {
  return workflows.reduce((a, b) => (time(b) > time(a) ? b : a));
}

/**
 * The one workflow named `name` in the workspace, or a CliError (exit 1) that says why there is
 * none or which ones compete.
 */
export async function findWorkflow(
  client: RunyardClient,
  workspaceId: string,
  name: string,
  o: FindWorkflowOptions = {},
): Promise<Workflow> {
  const named = await workflowsNamed(client, workspaceId, name);
  if (!named.length) throw new CliError(`No workflow named "${name}" in workspace ${workspaceId}.`);
  let candidates = named;
  if (o.platform) {
    candidates = candidates.filter((w) => w.repository?.platform === o.platform);
    if (!candidates.length) {
      const where = [...new Set(named.map((w) => w.repository?.platform ?? `${w.workflowType} (no repository)`))].sort().join(', ');
      throw new CliError(`No workflow named "${name}" on platform ${o.platform}; found on ${where}.`);
    }
  }
  if (o.preferArchived !== undefined) {
    const preferred = candidates.filter((w) => w.archived.status === o.preferArchived);
    if (preferred.length) candidates = preferred;
  }
  if (candidates.length > 1 && !o.last) {
    const ids = candidates.map((w) => `${w._id} (${w.workflowType}${w.archived.status ? ', archived' : ''})`).join(', ');
    throw new CliError(
      `More than one workflow is named "${name}": ${ids}. Use --last for the most recently imported one${o.ambiguityHint ?? ''}.`,
    );
  }
  return newest(candidates);
}
