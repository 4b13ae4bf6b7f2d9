import { Command, Option } from 'commander';
import type { ArrayFileSeparator } from '@runyard/client';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { repeatable } from '../../options/repeatable.js';
import { afterLaunch, reportLaunched } from '../job/follow.js';
import { required } from '../job/job-options.js';
import { addBashJobOptions, bashSubmission, type BashJobOptions } from './job.js';

/** The --separator choices (cloudos-cli's), and how the API names each. */
const SEPARATORS: Record<string, ArrayFileSeparator> = { ',': ',', ';': ';', tab: 'tab', space: ' ', '|': '|' };

export interface BashArrayJobOptions extends Omit<BashJobOptions, 'command'> {
  command?: string;
  arrayFile: string;
  separator: string;
  listColumns?: boolean;
  arrayFileProject?: string;
  disableColumnCheck?: boolean;
  arrayParameter?: string[];
  customScriptPath?: string;
  customScriptProject?: string;
}

/** The File Explorer id of the custom script, found by listing its folder (as cloudos-cli does). */
async function scriptFileId(
  client: Parameters<Parameters<typeof withClient>[1]>[0],
  workspaceId: string,
  project: string,
  scriptPath: string,
): Promise<{ id: string; name: string }> {
  const datasets = await client.datasets(workspaceId, project);
  const parts = scriptPath.split('/').filter(Boolean);
  const name = parts.pop() ?? '';
  const listing = await datasets.listFolderContent(parts.join('/'));
  const file = listing.files.find((f) => f.name === name);
  if (!file?._id) throw new CliError(`Script "${name}" not found in the "${parts.join('/')}" folder of the project "${project}".`);
  return { id: file._id, name };
}

/**
 * Runs a command once per row of an array file (a bash array job): each `-a name=column` takes
 * that row's value of the column. With --list-columns, prints the array file's columns and runs
 * nothing. The columns named by -a are checked against the file's header unless
 * --disable-column-check.
 */
export async function bashArrayJob(opts: BashArrayJobOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const projectName = required(ctx, opts.profile, opts.projectName, 'projectName');
  if (!opts.listColumns && !opts.command && !opts.customScriptPath)
    throw new UsageError('Give --command or --custom-script-path (or --list-columns to see the columns of the array file).');
  if (!opts.listColumns && !opts.arrayParameter?.length)
    throw new UsageError('Give at least one -a/--array-parameter name=column: the columns whose values reach the command.');
  const separator = SEPARATORS[opts.separator];
  const arrayProject = opts.arrayFileProject ?? projectName;
  await withClient(conn, async (client) => {
    const columns = await client.retrieveArrayFileColumns(conn.workspaceId, arrayProject, opts.arrayFile, separator);
    if (opts.listColumns) {
      ctx.stdout.write(`Columns of ${opts.arrayFile}:\n${columns.headers.map((c) => `  ${c.name}\n`).join('')}`);
      return;
    }
    const header = opts.disableColumnCheck ? [] : columns.headers;
    if (!opts.disableColumnCheck) {
      const names = header.map((c) => c.name);
      for (const spec of opts.arrayParameter ?? []) {
        const column = spec.split('=').slice(1).join('=');
        if (!names.includes(column)) {
          throw new UsageError(`Column '${column}' not found in the array file. Columns in the array file: ${names.join(', ')}.`);
        }
      }
    }
    const submission = bashSubmission(opts, ctx, conn.workspaceId, projectName);
    const script = opts.customScriptPath
      ? await scriptFileId(client, conn.workspaceId, opts.customScriptProject ?? projectName, opts.customScriptPath)
      : undefined;
    const id = await client.sendJob({
      ...submission,
      command: script ? script.name : opts.command,
      ...(script && { customScriptFileId: script.id }),
      arrayFile: { fileId: columns.fileId, separator },
      arrayParameters: opts.arrayParameter,
      arrayFileHeader: header,
    });
    reportLaunched(ctx, conn, id, `Array job "${opts.jobName}" launched`);
    await afterLaunch(client, conn, id, opts, ctx);
  });
}

export function bashArrayJobCommand(ctx: CliContext): Command {
  const cmd = new Command('array-job')
    .description('run a command once per row of an array file (a bash array job) and print the job id')
    .option('--command <command>', 'the command to run for each row (a shell command line)')
    .requiredOption('--array-file <path>', 'File Explorer path of the array file: a header row naming the columns, then one row per task')
    .addOption(
      new Option('--separator <separator>', 'how the columns of the array file are separated')
        .choices(Object.keys(SEPARATORS))
        .default(','),
    )
    .option('--list-columns', 'print the columns of the array file and run nothing')
    .option('--array-file-project <name>', 'project of the array file (default: --project-name)')
    .option('--disable-column-check', 'send -a columns without checking them against the header here (the server still checks them)')
    .addOption(
      new Option(
        '-a, --array-parameter <name=column>',
        'a parameter that takes its value from this column of each row; repeat for more',
      ).argParser(repeatable),
    )
    .option('--custom-script-path <path>', 'File Explorer path of a script to run instead of --command')
    .option('--custom-script-project <name>', 'project of the custom script (default: --project-name)');
  addBashJobOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: BashArrayJobOptions) => bashArrayJob(opts, ctx));
}
