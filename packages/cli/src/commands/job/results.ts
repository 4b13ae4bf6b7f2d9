import type { RunyardClient, StatusItem } from '@runyard/client';
import { Command, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type Connection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { describeError } from '../../errors/describe-error.js';
import { openPrompter } from '../../prompt/prompter.js';
import { emitRecords } from '../../output/emit-record.js';
import { addOutputFormatOption, type OutputFormat } from '../../output/format.js';
import { loadSdk } from '../../sdk.js';
import { jobId } from '../../options/object-id.js';
import { linkAndReport, MountReport, sessionIdOption } from '../link/common.js';
import { downloadJobFolder } from './download.js';

/** `--link --session-id S` of `job results|workdir|logs`. */
export interface JobLinkFlags {
  link?: boolean;
  sessionId?: string;
}

/** --link and --session-id, as cloudos-cli's job commands have them. */
export function addJobLinkOptions(cmd: Command, what: string): Command {
  return cmd
    .addOption(
      new Option('--link', `link the ${what} into a running interactive session (with --session-id)`).conflicts(['status', 'download']),
    )
    .addOption(sessionIdOption('the interactive session for --link'));
}

/** Checked before anything is sent: --link needs --session-id (a --session-id alone is ignored, saying so). */
export function checkJobLinkFlags(opts: JobLinkFlags, ctx: CliContext): void {
  if (opts.link && !opts.sessionId) throw new UsageError('--session-id is required when using --link flag');
  if (!opts.link && opts.sessionId) ctx.stderr.write("'--session-id' is ignored when '--link' is not specified.\n");
}

/**
 * Links a job's folder (a storage URL) into the session of --session-id and waits for the mount:
 * every line on stderr, stdout keeping what the command printed. Exit 1 when it failed to mount.
 */
export async function linkJobFolderInto(
  client: RunyardClient,
  conn: Connection,
  ctx: CliContext,
  opts: { jobId: string; sessionId?: string },
  url: string,
  what: string,
): Promise<void> {
  ctx.stderr.write(`Linking the ${what} of job ${opts.jobId} to interactive session ${opts.sessionId}...\n`);
  const report = new MountReport(ctx, 'stderr');
  await linkAndReport(client, conn, opts.sessionId!, [url], report);
  report.finish(`Linking the ${what} of job ${opts.jobId}`);
}

export interface JobDataDeleteOptions extends ConnectionFlags, JobLinkFlags {
  jobId: string;
  outputFormat: OutputFormat;
  status?: boolean;
  delete?: boolean;
  yes?: boolean;
  verbose?: boolean;
  /** A local directory to copy the files into. */
  download?: string;
}

/**
 * A failure of a job-data command as cloudos-cli words it: `Job 'J' not found or not accessible.`
 * for a refusal of the server, `Failed to retrieve <what> for job 'J'.` otherwise; the exit code of
 * the cause (4 for a rejected API key) is kept.
 */
export async function jobDataFailure(e: unknown, jobId: string, what: string): Promise<never> {
  if (e instanceof CliError) throw e;
  const sdk = await loadSdk();
  const report = await describeError(e);
  const lead = e instanceof sdk.ApiError ? `Job '${jobId}' not found or not accessible.` : `Failed to retrieve ${what} for job '${jobId}'.`;
  throw new CliError(`${lead} ${report.message}`, report.exitCode);
}

/** A deletion status (`--status`) as json (what the server said) or one csv row. */
export function emitDeletionStatus(
  ctx: CliContext,
  format: OutputFormat,
  s: { job_id?: string; status?: string; items: StatusItem },
): Promise<void> {
  const record = { job_id: s.job_id, status: s.status, updatedAt: s.items.updatedAt as string | undefined };
  return emitRecords(format, ctx, { text: '', json: s, columns: Object.keys(record), records: [record] });
}

/** The words cloudos-cli shows for each deletion status. */
const STATUS_WORDS: Record<string, string> = {
  ready: 'available',
  deleting: 'deleting',
  scheduledForDeletion: 'scheduled for deletion',
  deleted: 'deleted',
  failedToDelete: 'failed to delete',
};

/**
 * `The <subject> is in status: <word>`, and for any status but available when it changed and by
 * whom (`deletedBy`, else the folder's user), the reason of a failed deletion; with verbose the
 * folder's name, id, times and type. All on stdout.
 */
export function printDeletionStatus(
  ctx: CliContext,
  sentence: string,
  status: string | undefined,
  folder: StatusItem,
  extra: Array<[string, unknown]>,
  verbose: boolean,
): void {
  const word = STATUS_WORDS[status ?? ''] ?? status ?? 'unknown';
  const out: string[] = [`${sentence}: ${word}`];
  if (word !== 'available') {
    if (folder.updatedAt) out.push(`Status changed at: ${String(folder.updatedAt)}`);
    const user = (folder.deletedBy ?? folder.user) as { name?: string; surname?: string; email?: string } | undefined;
    if (user) {
      const name = `${user.name ?? ''} ${user.surname ?? ''}`.trim();
      const email = user.email ?? '';
      if (name || email) out.push(`User: ${name && email ? `${name} (${email})` : name || email}`);
    }
    if (folder.statusMessage) out.push(`Reason: ${String(folder.statusMessage)}`);
  }
  if (verbose) {
    out.push('', 'Additional information:');
    for (const [label, value] of [
      ...extra,
      ['Created at', folder.createdAt],
      ['Updated at', folder.updatedAt],
      ['Folder type', folder.folderType],
    ] as Array<[string, unknown]>) {
      if (value !== undefined && value !== null && value !== '') out.push(`  ${label}: ${String(value)}`);
    }
  }
  ctx.stdout.write(out.join('\n') + '\n');
}

/**
 * Asks for a y/n confirmation on a terminal (the question on stderr); true only for `y`. Without a
 * terminal there is nobody to ask: a usage error (exit 2) unless -y was given.
 */
export async function confirmDeletion(ctx: CliContext, question: string, command: string): Promise<boolean> {
  if (!ctx.stdin.isTTY) {
    throw new UsageError(`Refusing to delete without a confirmation: stdin is not a terminal. Add -y (--yes) to "${command}" to confirm.`);
  }
  const prompter = await openPrompter(ctx);
  try {
    const answer = await prompter.ask(`${question} [y/n] `);
    return answer.trim().toLowerCase() === 'y';
  } finally {
    prompter.close();
  }
}

const RESULTS_QUESTION =
  '⚠️ Deleting final analysis results is irreversible. All data and backups will be permanently removed and cannot be recovered. ' +
  "You can skip this confirmation step by providing '-y' or '--yes' flag to 'runyard job results --delete'. " +
  'Please confirm that you want to delete final results of this analysis?';

/** Deletes after the confirmation (or -y); prints what cloudos-cli prints, and how to follow the deletion. */
export async function deleteJobData(
  client: RunyardClient,
  conn: Connection,
  ctx: CliContext,
  opts: JobDataDeleteOptions,
  mode: 'analysisResults' | 'workDirectory',
): Promise<void> {
  const results = mode === 'analysisResults';
  if (
    !opts.yes &&
    !(await confirmDeletion(ctx, results ? RESULTS_QUESTION : WORKDIR_QUESTION, `runyard job ${results ? 'results' : 'workdir'} --delete`))
  ) {
    ctx.stderr.write('Deletion cancelled.\n');
    return;
  }
  const what = results ? `The results of job ${opts.jobId} are` : `The working directory of job ${opts.jobId} is`;
  if (opts.verbose) ctx.stderr.write(`Deleting ${what.replace(/^The /, 'the ').replace(/ (are|is)$/, '')}...\n`);
  await client.deleteJobResults(opts.jobId, mode, conn.workspaceId);
  // The server deletes in the background: say so once, and how to see when it is done.
  ctx.stdout.write(
    `${what} being deleted; "runyard job ${results ? 'results' : 'workdir'} --job-id ${opts.jobId} --status" shows when the deletion is done.\n`,
  );
}

export const WORKDIR_QUESTION =
  '⚠️ Deleting intermediate results is permanent and cannot be undone. All associated data will be permanently removed and cannot be recovered. ' +
  'The current job, as well as any other jobs sharing the same working directory, will no longer be resumable. ' +
  'This action will be logged, and you will be recorded as the user who performed the deletion. ' +
  'You can skip this confirmation step by providing -y or --yes flag to runyard job workdir --delete. ' +
  'Please confirm that you want to delete intermediate results of this analysis?';

/**
 * `results: <url>` of a completed job's results directory (stdout). With --status the deletion
 * status of its results folder instead; with --delete (asking first unless -y) the results are
 * scheduled for deletion after they are shown.
 */
export async function jobResults(opts: JobDataDeleteOptions, ctx: CliContext): Promise<void> {
  checkJobLinkFlags(opts, ctx);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const sdk = await loadSdk();
  await withClient(conn, async (client) => {
    if (opts.status) {
      const s = await client
        .getResultsDeletionStatus(opts.jobId, conn.workspaceId)
        .catch((e) => jobDataFailure(e, opts.jobId, 'the deletion status'));
      if (opts.outputFormat !== 'table') return emitDeletionStatus(ctx, opts.outputFormat, s);
      printDeletionStatus(
        ctx,
        `The results of job ${s.job_id} are in status`,
        s.status,
        s.items,
        [
          ['Job name', s.job_name],
          ['Results folder name', s.results_folder_name],
          ['Results folder ID', s.results_folder_id],
        ],
        Boolean(opts.verbose),
      );
      return;
    }
    let url: string | undefined;
    try {
      if (opts.download) {
        const folder = await client.getJobResultsFolder(opts.jobId, conn.workspaceId);
        return await downloadJobFolder(client, ctx, conn.workspaceId, folder, opts.download);
      }
      url = await client.getJobResults(opts.jobId, conn.workspaceId);
      const record = { job_id: opts.jobId, results: url };
      await emitRecords(opts.outputFormat, ctx, {
        text: `results: ${url}\n`,
        json: record,
        columns: Object.keys(record),
        records: [record],
      });
    } catch (e) {
      // A job whose results hold only files still has results to delete.
      if (!(opts.delete && e instanceof sdk.NoResultDirectoriesError)) await jobDataFailure(e, opts.jobId, 'results');
      ctx.stderr.write(`Warning: ${(e as Error).message}\n`);
    }
    if (opts.link) {
      if (!url) throw new CliError(`Job ${opts.jobId} has no results folder to link.`);
      await linkJobFolderInto(client, conn, ctx, opts, url, 'results');
    }
    if (opts.delete) await deleteJobData(client, conn, ctx, opts, 'analysisResults').catch((e) => jobDataFailure(e, opts.jobId, 'results'));
    else if (opts.yes) ctx.stderr.write("'--yes' flag is ignored when '--delete' is not specified.\n");
  });
}

/** The options `job results` and `job workdir` share. */
export function jobDataCommand(name: string, description: string, what: string): Command {
  const cmd = new Command(name)
    .description(description)
    .requiredOption('--job-id <id>', 'id of the job', jobId)
    .option('--status', `print the deletion status of the ${what} instead`)
    .option('--delete', `delete the ${what} (asks first unless -y)`)
    .option('-y, --yes', 'do not ask before deleting')
    .option('--verbose', 'print more about what is done')
    .option('--download <dir>', `copy the files of the ${what} into this local directory (resumes, skips files already there)`);
  addJobLinkOptions(cmd, what);
  addOutputFormatOption(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd;
}

export function jobResultsCommand(ctx: CliContext): Command {
  return jobDataCommand('results', 'print the URL of the results of a completed job, or delete them', 'results').action(
    (opts: JobDataDeleteOptions) => jobResults(opts, ctx),
  );
}
