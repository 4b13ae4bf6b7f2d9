import { Command, InvalidArgumentError, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { repositoryPlatformOption, type Platform } from './platform.js';

export interface WorkflowImportOptions extends ConnectionFlags {
  workflowUrl: string;
  workflowName: string;
  repositoryPlatform: Platform;
  workflowDocsLink: string;
  costLimit: number;
  workflowDescription: string;
  mainFile?: string;
  importsFile?: string;
}

function costLimit(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of US dollars, 0 or more.');
  return n;
}

/**
 * Imports a workflow from a git repository (getPublicRepo, getWorkflowConfig when no main file
 * is given, POST /api/v2/workflows) and prints its id.
 */
export async function workflowImport(opts: WorkflowImportOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const id = await withClient(conn, (client) =>
    client.importWorkflow(conn.workspaceId, {
      workflowUrl: opts.workflowUrl,
      workflowName: opts.workflowName,
      repositoryPlatform: opts.repositoryPlatform,
      docsLink: opts.workflowDocsLink,
      costLimit: opts.costLimit,
      description: opts.workflowDescription,
      ...(opts.mainFile && { mainFile: opts.mainFile }),
      ...(opts.importsFile && { importsFile: opts.importsFile }),
    }),
  );
  ctx.stdout.write(`${id}\n`);
  ctx.stderr.write(`Workflow "${opts.workflowName}" imported from ${opts.workflowUrl} into workspace ${conn.workspaceId}.\n`);
}

export function workflowImportCommand(ctx: CliContext): Command {
  const cmd = new Command('import')
    .description('import a workflow from a git repository and print its id')
    .requiredOption('-w, --workflow-url <url>', 'URL of the repository (https://github.com/OWNER/REPO)')
    .requiredOption('--workflow-name <name>', 'name of the workflow in Runyard')
    .addOption(repositoryPlatformOption('where the repository is hosted', 'github'))
    .option('-d, --workflow-docs-link <url>', 'link to the documentation', '')
    .addOption(new Option('--cost-limit <usd>', 'default cost limit of its jobs, in US dollars').argParser(costLimit).default(30))
    .option('--workflow-description <text>', 'description', '')
    .option('--main-file <path>', 'main file in the repository (found when not given; WDL repositories with several .wdl files need it)')
    .option('--imports-file <path>', 'WDL imports file (a zip) in the repository');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: WorkflowImportOptions) => workflowImport(opts, ctx));
}
