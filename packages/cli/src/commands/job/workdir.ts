import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { resolveConnection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { emitRecords } from '../../output/emit-record.js';
import { downloadJobFolder } from './download.js';
import {
  checkJobLinkFlags,
  deleteJobData,
  emitDeletionStatus,
  jobDataCommand,
  jobDataFailure,
  linkJobFolderInto,
  printDeletionStatus,
  type JobDataDeleteOptions,
} from './results.js';

/**
 * `Working directory for job J: <url>` (stdout), found as cloudos-cli finds it (its folder, else
 * the logs location with /logs replaced by /work). With --status the deletion status of the work
 * folder instead; with --delete (asking first unless -y) it is scheduled for deletion after it is shown.
 */
export async function jobWorkdir(opts: JobDataDeleteOptions, ctx: CliContext): Promise<void> {
  checkJobLinkFlags(opts, ctx);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  await withClient(conn, async (client) => {
    if (opts.status) {
      const s = await client
        .getWorkdirDeletionStatus(opts.jobId, conn.workspaceId)
        .catch((e) => jobDataFailure(e, opts.jobId, 'the deletion status'));
      if (opts.outputFormat !== 'table') return emitDeletionStatus(ctx, opts.outputFormat, s);
      printDeletionStatus(
        ctx,
        `The working directory of job ${s.job_id} is in status`,
        s.status,
        s.items,
        [
          ['Job name', s.job_name],
          ['Working directory folder name', s.workdir_folder_name],
          ['Working directory folder ID', s.workdir_folder_id],
        ],
        Boolean(opts.verbose),
      );
      return;
    }
    const workdir = await client
      .getJobWorkdir(opts.jobId, conn.workspaceId, { warn: (m) => ctx.stderr.write(`${m}\n`) })
      .catch((e) => jobDataFailure(e, opts.jobId, 'working directory'));
    if (opts.download) return downloadJobFolder(client, ctx, conn.workspaceId, workdir, opts.download);
    const record = { job_id: opts.jobId, workdir };
    const text = `Working directory for job ${opts.jobId}: ${workdir}\n`;
    await emitRecords(opts.outputFormat, ctx, { text, json: record, columns: Object.keys(record), records: [record] });
    if (opts.link) await linkJobFolderInto(client, conn, ctx, opts, workdir.trim(), 'working directory');
    if (opts.delete)
      await deleteJobData(client, conn, ctx, opts, 'workDirectory').catch((e) => jobDataFailure(e, opts.jobId, 'the working directory'));
    else if (opts.yes) ctx.stderr.write("'--yes' flag is ignored when '--delete' is not specified.\n");
  });
}

export function jobWorkdirCommand(ctx: CliContext): Command {
  return jobDataCommand('workdir', 'print the URL of the working directory of a job, or delete it', 'working directory').action(
    (opts: JobDataDeleteOptions) => jobWorkdir(opts, ctx),
  );
}
