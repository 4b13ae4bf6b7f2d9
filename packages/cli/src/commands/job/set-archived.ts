import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { malformedJobIds, parseJobIds } from './job-ids.js';

export interface JobArchiveOptions extends ConnectionFlags {
  jobIds: string;
  verbose?: boolean;
}

const listed = (ids: string[]) => ids.join(', ');

/**
 * Archives (or unarchives) jobs as cloudos-cli does: check_jobs_archive_status first, then one
 * request for the jobs that need it. Jobs already in that state need no action; ids that cannot
 * be found get a warning and are left out (exit 0, as cloudos-cli). The ids changed go to stdout.
 */
export async function setJobsArchived(opts: JobArchiveOptions, ctx: CliContext, archived: boolean): Promise<void> {
  const ids = parseJobIds(opts.jobIds);
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const action = archived ? 'archived' : 'unarchived';
  const note = (line: string) => ctx.stderr.write(`${line}\n`);
  const malformed = malformedJobIds(ids);
  await withClient(conn, async (client) => {
    const wellFormed = ids.filter((id) => !malformed.has(id));
    const check = wellFormed.length
      ? await client.checkJobsArchiveStatus(wellFormed, conn.workspaceId, archived, Boolean(opts.verbose), note)
      : { invalidJobs: {}, alreadyProcessed: [], validJobs: [] };
    for (const [id, reason] of [...malformed, ...Object.entries(check.invalidJobs)]) {
      note(`Warning: ${reason.startsWith('Failed to get status') ? reason : `Failed to get status for job ${id}: ${reason}`}`);
    }
    const already = check.alreadyProcessed;
    if (already.length === 1) note(`Job '${already[0]}' is already ${action}. No action needed.`);
    else if (already.length > 1) {
      note(
        already.length === ids.length
          ? `All ${already.length} jobs are already ${action}. No action needed.`
          : `${already.length} jobs are already ${action}. No action needed: ${listed(already)}`,
      );
    }
    const valid = check.validJobs;
    if (!valid.length) {
      if (!already.length) note(`No job to ${archived ? 'archive' : 'unarchive'}.`);
      return;
    }
    if (archived) await client.archiveJobs(valid, conn.workspaceId);
    else await client.unarchiveJobs(valid, conn.workspaceId);
    ctx.stdout.write(valid.map((id) => `${id}\n`).join(''));
    note(
      valid.length === 1 ? `Job '${valid[0]}' ${action} successfully.` : `${valid.length} jobs ${action} successfully: ${listed(valid)}`,
    );
  });
}

export function setArchivedCommand(ctx: CliContext, archived: boolean): Command {
  const cmd = new Command(archived ? 'archive' : 'unarchive')
    .description(archived ? 'archive jobs: "job list" shows them only with --archived' : 'unarchive jobs: "job list" shows them again')
    .requiredOption('--job-ids <ids>', 'ids of the jobs, comma-separated')
    .option('--verbose', 'print the state of each job as it is checked');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobArchiveOptions) => setJobsArchived(opts, ctx, archived));
}
