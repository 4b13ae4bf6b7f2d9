import type { RunyardClient, StatusItem } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type Connection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors/cli-error.js';
import { describeError } from '../../errors/describe-error.js';
import { openPrompter } from '../../prompt/prompter.js';
import { loadSdk } from '../../sdk.js';

export interface JobDataDeleteOptions extends ConnectionFlags {
  jobId: string;
  status?: boolean;
  delete?: boolean;
  yes?: boolean;
  verbose?: boolean;
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
  if (opts.verbose) ctx.stderr.write(`Deleting the ${results ? 'result' : 'intermediate results'} directories of job ${opts.jobId}...\n`);
  await client.deleteJobResults(opts.jobId, mode, conn.workspaceId);
  ctx.stdout.write(results ? 'Results directories deleted successfully.\n' : 'Intermediate results directories deleted successfully.\n');
  ctx.stderr.write(
    `The deletion is under way; "runyard job ${results ? 'results' : 'workdir'} --job-id ${opts.jobId} --status" shows when it is done.\n`,
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
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const sdk = await loadSdk();
  await withClient(conn, async (client) => {
    if (opts.status) {
      const s = await client
        .getResultsDeletionStatus(opts.jobId, conn.workspaceId)
        .catch((e) => jobDataFailure(e, opts.jobId, 'the deletion status'));
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
    try {
      ctx.stdout.write(`results: ${await client.getJobResults(opts.jobId, conn.workspaceId)}\n`);
    } catch (e) {
      // A job whose results hold only files still has results to delete.
      if (!(opts.delete && e instanceof sdk.NoResultDirectoriesError)) await jobDataFailure(e, opts.jobId, 'results');
      ctx.stderr.write(`Warning: ${(e as Error).message}\n`);
    }
    if (opts.delete) await deleteJobData(client, conn, ctx, opts, 'analysisResults').catch((e) => jobDataFailure(e, opts.jobId, 'results'));
    else if (opts.yes) ctx.stderr.write("'--yes' flag is ignored when '--delete' is not specified.\n");
  });
}

/** The options `job results` and `job workdir` share. */
export function jobDataCommand(name: string, description: string, what: string): Command {
  const cmd = new Command(name)
    .description(description)
    .requiredOption('--job-id <id>', 'id of the job')
    .option('--status', `print the deletion status of the ${what} instead`)
    .option('--delete', `delete the ${what} (asks first unless -y)`)
    .option('-y, --yes', 'do not ask before deleting')
    .option('--verbose', 'print more about what is done');
  addConnectionOptions(cmd, { workspace: true });
  return cmd;
}

export function jobResultsCommand(ctx: CliContext): Command {
  return jobDataCommand('results', 'print the URL of the results of a completed job, or delete them', 'results').action(
    (opts: JobDataDeleteOptions) => jobResults(opts, ctx),
  );
}
