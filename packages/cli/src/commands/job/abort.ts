import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { describeError } from '../../errors/describe-error.js';
import { malformedJobIds, parseJobIds } from './job-ids.js';

export interface JobAbortOptions extends ConnectionFlags {
  jobIds: string;
  force?: boolean;
  verbose?: boolean;
}

/** The statuses a job can be aborted from (cloudos-cli's running and initializing, and those before them). */
const ABORTABLE = ['queued', 'scheduled', 'initializing', 'running'];

/**
 * For each id: reads the job, and aborts it only if it is still active (`aborting` too with
 * --force, which stops it at once); finished jobs are skipped with a message. The ids of the
 * aborted jobs go to stdout, one a line. Exits 1 if any id could not be read or aborted.
 */
export async function jobAbort(opts: JobAbortOptions, ctx: CliContext): Promise<void> {
  const ids = parseJobIds(opts.jobIds);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const force = Boolean(opts.force);
  const failed: string[] = [];
  const malformed = malformedJobIds(ids);
  await withClient(conn, async (client) => {
    for (const id of ids) {
      if (malformed.has(id)) {
        failed.push(id);
        ctx.stderr.write(`Failed to abort job ${id}: ${malformed.get(id)}\n`);
        continue;
      }
      try {
        const job = await client.getJobStatus(id, conn.workspaceId);
        if (opts.verbose) ctx.stderr.write(`Job '${id}' is ${job.status}.\n`);
        if (job.status === 'aborting' && !force) {
          ctx.stderr.write(`Job '${id}' is already being aborted; use --force to stop it at once.\n`);
          continue;
        }
        if (!ABORTABLE.includes(job.status) && job.status !== 'aborting') {
          ctx.stderr.write(
            `Job '${id}' is ${job.status}; only queued, scheduled, initializing and running jobs can be aborted. Skipped.\n`,
          );
          continue;
        }
        const reply = (await client.abortJob(id, conn.workspaceId, force)) as { status?: string } | undefined;
        ctx.stdout.write(`${id}\n`);
        ctx.stderr.write(
          reply?.status === 'aborted'
            ? `Job '${id}' aborted successfully.\n`
            : `Job '${id}' is being aborted${force ? ' (forced)' : ''}; "runyard job status --job-id ${id}" shows when it is.\n`,
        );
      } catch (e) {
        if (e instanceof CliError) throw e;
        const report = await describeError(e);
        if (report.exitCode !== 1) throw e;
        failed.push(id);
        ctx.stderr.write(`Failed to abort job ${id}: ${report.message}\n`);
      }
    }
  });
  if (failed.length)
    throw new CliError(`${failed.length} of ${ids.length} job${ids.length > 1 ? 's' : ''} could not be aborted: ${failed.join(', ')}.`);
}

export function jobAbortCommand(ctx: CliContext): Command {
  const cmd = new Command('abort')
    .description('abort running jobs (finished ones are skipped)')
    .requiredOption('--job-ids <ids>', 'ids of the jobs, comma-separated')
    .option('--force', 'stop the jobs at once instead of gracefully')
    .option('--verbose', 'print the status of each job first');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobAbortOptions) => jobAbort(opts, ctx));
}
