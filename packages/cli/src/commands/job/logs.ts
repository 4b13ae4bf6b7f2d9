import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { jobDataFailure } from './results.js';

export interface JobLogsOptions extends ConnectionFlags {
  jobId: string;
}

/**
 * The job's log files, one `<display name>: <url>` line each on stdout ("Nextflow standard output",
 * "Nextflow log", "Trace file", other files by name), as cloudos-cli prints them.
 */
export async function jobLogs(opts: JobLogsOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const logs = await withClient(conn, (client) => client.getJobLogs(opts.jobId, conn.workspaceId)).catch((e) =>
    jobDataFailure(e, opts.jobId, 'logs'),
  );
  const entries = Object.entries(logs);
  if (!entries.length) ctx.stderr.write(`Job ${opts.jobId} has no log files yet.\n`);
  for (const [name, url] of entries) ctx.stdout.write(`${name}: ${url}\n`);
}

export function jobLogsCommand(ctx: CliContext): Command {
  const cmd = new Command('logs').description('print the URLs of the log files of a job').requiredOption('--job-id <id>', 'id of the job');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobLogsOptions) => jobLogs(opts, ctx));
}
