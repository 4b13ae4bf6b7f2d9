import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { jobUrl } from './follow.js';

export interface JobStatusOptions extends ConnectionFlags {
  jobId: string;
}

/** The job's status on stdout (one word, for scripts); its name and link on stderr. */
export async function jobStatus(opts: JobStatusOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const job = await withClient(conn, (client) => client.getJobStatus(opts.jobId, conn.workspaceId));
  ctx.stdout.write(`${job.status}\n`);
  ctx.stderr.write(`Job "${job.name}" (${job._id}) is ${job.status}: ${jobUrl(conn.platformUrl, job._id)}\n`);
}

export function jobStatusCommand(ctx: CliContext): Command {
  const cmd = new Command('status').description('print the status of a job').requiredOption('--job-id <id>', 'id of the job');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobStatusOptions) => jobStatus(opts, ctx));
}
