import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { jobId } from '../../options/object-id.js';
import { emitRecords } from '../../output/emit-record.js';
import { addOutputFormatOption, type OutputFormat } from '../../output/format.js';
import { jobUrl } from './follow.js';

export interface JobStatusOptions extends ConnectionFlags {
  jobId: string;
  outputFormat: OutputFormat;
}

/**
 * The job's status on stdout (one word, for scripts) and its name and link on stderr; with json or
 * csv its id, name, status and link on stdout.
 */
export async function jobStatus(opts: JobStatusOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const job = await withClient(conn, (client) => client.getJobStatus(opts.jobId, conn.workspaceId));
  const link = jobUrl(conn.platformUrl, job._id);
  const record = { id: job._id, name: job.name, status: job.status, link };
  await emitRecords(opts.outputFormat, ctx, { text: `${job.status}\n`, json: record, columns: Object.keys(record), records: [record] });
  if (opts.outputFormat === 'table') ctx.stderr.write(`Job "${job.name}" (${job._id}) is ${job.status}: ${link}\n`);
}

export function jobStatusCommand(ctx: CliContext): Command {
  const cmd = new Command('status').description('print the status of a job').requiredOption('--job-id <id>', 'id of the job', jobId);
  addOutputFormatOption(cmd, 'table (the status alone)|json|csv');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobStatusOptions) => jobStatus(opts, ctx));
}
